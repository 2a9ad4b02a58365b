// A port on 127.0.0.1 that nothing listens on: a connection to it is refused at once.
import { once } from "node:events";
import { createServer } from "node:net";

export async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, "close");
  return port;
}
