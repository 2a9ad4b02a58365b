// Every chat surface behind one interface: main.ts starts and stops them alike.
export interface ChatAdapter {
  readonly name: string;
  /** Resolves once the surface is connected and taking events. */
  start(): Promise<void>;
  /** Stops taking events, lets runs in flight reach a safe point, releases connections. Must not throw. */
  stop(): Promise<void>;
}
