// A person as the platforms name them; its own file so that provenance (what a text's source is)
// and the run's types can both name one without importing each other.
export interface Person {
  readonly id: string;
  readonly name?: string;
}
