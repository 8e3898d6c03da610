import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder between the server under test and a dependency (PostgreSQL, Redis) that a spec
 * can cut and restore, to see the server through an outage without stopping the machine's shared
 * PostgreSQL or Redis (other specs use them meanwhile).
 *
 * While cut, every open connection is reset and every new one is accepted and reset at once (the
 * listening port stays, so no other process can take it meanwhile): what a client sees of a
 * server that went away.
 */
export class TcpForwarder {
  private readonly sockets = new Set<Socket>();
  private cutOff = false;

  private constructor(
    private readonly server: Server,
    /** The port the forwarder listens on, on 127.0.0.1. */
    readonly port: number,
  ) {}

  /** Listens on a free port of 127.0.0.1 and forwards each connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpForwarder> {
    const server = createServer();
    await new Promise<void>((listening, failed) => {
      server.once('error', failed);
      server.listen(0, '127.0.0.1', () => listening());
    });
    const forwarder = new TcpForwarder(server, (server.address() as { port: number }).port);
    server.on('connection', (client: Socket) => forwarder.accept(client, target));
    return forwarder;
  }

  /** The forwarder in front of the host and port of `url` (`postgres://…`, `redis://…`): the same URL through it. */
  static async before(url: string): Promise<{ forwarder: TcpForwarder; url: string }> {
    const target = new URL(url);
    const forwarder = await TcpForwarder.start({ host: target.hostname, port: Number(target.port) });
    target.host = `127.0.0.1:${forwarder.port}`;
    return { forwarder, url: target.href };
  }

  /** Resets every open connection and refuses new ones until {@link restore}. */
  cut(): void {
    this.cutOff = true;
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
  }

  /** Forwards new connections again. */
  restore(): void {
    this.cutOff = false;
  }

  /** Resets every connection and stops listening. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((closed) => this.server.close(() => closed()));
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    if (this.cutOff) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(target);
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(socket);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        this.sockets.delete(socket);
        other.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
