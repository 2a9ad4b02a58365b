// A person as every surface names them: the platform's id, and the name people know when it is known.
// In a file of its own so the contracts that name people (provenance.ts) need not import types.ts.
export interface Person {
  readonly id: string;
  readonly name?: string;
}
