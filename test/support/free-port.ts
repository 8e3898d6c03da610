import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1 (bound, read, released). Used by the specs and the benchmark. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
