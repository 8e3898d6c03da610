import { connect, createServer } from 'node:net';

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

/**
 * Resolves once something accepts connections on 127.0.0.1:`port`, polling every 50 ms.
 * @throws Error naming the port and `what()` (e.g. the process's output) after `deadlineMs` (epoch ms).
 */
export async function waitForPort(port: number, what: () => string, deadlineMs = Date.now() + 30_000): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true));
      socket.once('error', () => resolve(false));
      socket.once('connect', () => socket.destroy());
    });
    if (open) return;
    if (Date.now() > deadlineMs) throw new Error(`nothing listens on 127.0.0.1:${port}: ${what()}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}
