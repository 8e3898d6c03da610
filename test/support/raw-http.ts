import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';

/** An answer as read off the wire: nothing normalised, headers in the order and case sent. */
export interface RawAnswer {
  /** `HTTP/1.1 200 OK`. */
  statusLine: string;
  status: number;
  /** `[name, value]` in the order sent, names as sent. */
  headers: [string, string][];
  /** The first value of a header, name compared without case (as the Arduino HTTPClient does). */
  header(name: string): string | undefined;
  /** The head as sent, up to and including the empty line. */
  head: string;
  /** The body: `Content-Length` bytes, or everything up to the close without one. */
  body: Buffer;
  /** Whether the server closed the connection after the answer. */
  closedByServer: boolean;
}

/** Where to connect. */
export interface RawTarget {
  host: string;
  port: number;
  /** Speak TLS (certificates are not checked, as the field SDKs do not check them). */
  tls?: boolean;
  /** SNI name to send over TLS. */
  servername?: string;
}

/** Target of a base URL such as `https://127.0.0.1:3005/fw`. */
export function targetOf(baseUrl: string): RawTarget {
  const url = new URL(baseUrl);
  const tls = url.protocol === 'https:';
  return { host: url.hostname, port: url.port === '' ? (tls ? 443 : 80) : Number(url.port), tls };
}

/**
 * Opens a connection, writes `request` byte for byte, reads one answer and closes the
 * connection, as the field SDKs' HTTP clients do.
 * @param options.waitForClose how long to wait after the body for the server to close the
 *   connection, ms (default 0: the client closes at once); `closedByServer` tells what happened.
 * @param options.onCertificate called with the DER of the certificate the server presents, over TLS.
 */
export async function exchange(
  target: RawTarget,
  request: Buffer | string,
  options: { waitForClose?: number; onCertificate?: (der: Buffer) => void } = {},
): Promise<RawAnswer> {
  const socket = await open(target);
  const chunks: Buffer[] = [];
  let ended = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.once('end', () => (ended = true));
  try {
    // A client that refuses the certificate (a pinned fingerprint) sends nothing.
    if (target.tls) options.onCertificate?.((socket as TLSSocket).getPeerX509Certificate()!.raw);
    socket.write(typeof request === 'string' ? Buffer.from(request, 'latin1') : request);
    const parsed = await readAnswer(socket, chunks, () => ended);
    if (options.waitForClose) await Promise.race([closed, new Promise((wake) => setTimeout(wake, options.waitForClose))]);
    return { ...parsed, closedByServer: ended };
  } finally {
    socket.destroy();
  }
}

async function open(target: RawTarget): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = target.tls
      ? connectTls({ host: target.host, port: target.port, servername: target.servername, rejectUnauthorized: false }, () =>
          resolve(socket),
        )
      : connectTcp({ host: target.host, port: target.port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads one answer from the bytes `chunks` collects: the head, then `Content-Length` bytes (or up to the close). */
async function readAnswer(socket: Socket, chunks: Buffer[], ended: () => boolean): Promise<Omit<RawAnswer, 'closedByServer'>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const bytes = Buffer.concat(chunks);
    const end = bytes.indexOf('\r\n\r\n');
    if (end >= 0) {
      const head = bytes.subarray(0, end + 4).toString('latin1');
      const [statusLine, ...lines] = head.slice(0, -4).split('\r\n');
      const headers = lines.map((line): [string, string] => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon), line.slice(colon + 1).trim()];
      });
      const header = (name: string) => headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
      const length = header('content-length');
      const body = bytes.subarray(end + 4);
      const complete = length === undefined ? ended() : body.length >= Number(length);
      if (complete) {
        return {
          statusLine,
          status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
          headers,
          header,
          head,
          body: length === undefined ? body : body.subarray(0, Number(length)),
        };
      }
    }
    if (ended() || socket.destroyed) throw new Error(`connection closed before a whole answer: ${bytes.toString('latin1').slice(0, 300)}`);
    if (!(await nextEvent(socket, deadline))) throw new Error('no whole answer within 15 s');
  }
}

/** Resolves true on the socket's next `data`, `end` or `close`, false at `deadline`. */
function nextEvent(socket: Socket, deadline: number): Promise<boolean> {
  return new Promise((resolve) => {
    const events = ['data', 'end', 'close'] as const;
    const timer = setTimeout(() => done(false), Math.max(0, deadline - Date.now()));
    const done = (seen: boolean) => {
      clearTimeout(timer);
      for (const event of events) socket.off(event, onEvent);
      resolve(seen);
    };
    const onEvent = () => done(true);
    for (const event of events) socket.once(event, onEvent);
  });
}
