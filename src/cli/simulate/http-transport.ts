import http from 'node:http';
import https from 'node:https';
import { isLoopbackHost } from './source-address.js';

/** Largest JSON answer read into memory; anything bigger is a failure. */
const MAX_JSON_BYTES = 1024 * 1024;

/** A JSON answer: status, headers and the parsed body (`undefined` when not JSON). */
export interface JsonAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  /** The raw body text, for failure reasons. */
  text: string;
}

/** What one request sends. */
export interface RequestSpec {
  method: 'GET' | 'POST';
  url: URL;
  /** Sent as `x-access-token`, the header name the field SDKs use. */
  token?: string;
  /** JSON body. */
  json?: unknown;
  /** More request headers (the updater's `x-ESP32-…`). */
  headers?: Record<string, string>;
}

/**
 * One device's HTTP connections: keep-alive agents of its own (closed by {@link close}), and,
 * for servers on this machine, its own loopback source address (see source-address.ts).
 */
export class DeviceTransport {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  /**
   * @param localAddress loopback source address for loopback servers, or undefined for the default.
   * @param timeoutMs idle timeout of a request (no byte sent or received for that long).
   * @param onRequest called once per request sent, for the request count.
   */
  constructor(
    private readonly localAddress: string | undefined,
    private readonly timeoutMs: number,
    private readonly onRequest: () => void,
  ) {
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 2 });
  }

  /**
   * Sends a request and resolves with the response head; the caller consumes the body.
   * @throws Error on connection failure or when nothing arrives within the timeout.
   */
  send(spec: RequestSpec): Promise<http.IncomingMessage> {
    const payload = spec.json === undefined ? undefined : Buffer.from(JSON.stringify(spec.json), 'utf8');
    // Content-Type is listed for every endpoint (docs/device-interface.md); the SDKs send it on GETs too.
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'user-agent': 'firmledger-simulate', ...spec.headers };
    if (payload) headers['content-length'] = payload.length;
    if (spec.token !== undefined) headers['x-access-token'] = spec.token;
    const secure = spec.url.protocol === 'https:';
    const options: http.RequestOptions = { method: spec.method, headers, agent: secure ? this.httpsAgent : this.httpAgent };
    if (this.localAddress !== undefined && isLoopbackHost(spec.url.hostname)) {
      options.localAddress = this.localAddress;
      options.family = 4; // `localhost` may resolve to ::1, unreachable from a 127.x source
    }
    return new Promise((resolve, reject) => {
      this.onRequest();
      const request = (secure ? https : http).request(spec.url, options, resolve);
      request.setTimeout(this.timeoutMs, () =>
        request.destroy(new Error(`no data for ${this.timeoutMs} ms from ${spec.method} ${spec.url.pathname}`)),
      );
      request.once('error', reject);
      request.end(payload);
    });
  }

  /**
   * Sends a request and reads a JSON answer of at most 1 MiB.
   * @throws Error on connection failure, timeout or an oversized body.
   */
  async sendJson(spec: RequestSpec): Promise<JsonAnswer> {
    const response = await this.send(spec);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_JSON_BYTES) {
        response.destroy();
        throw new Error(`answer of ${spec.method} ${spec.url.pathname} exceeds ${MAX_JSON_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode ?? 0, headers: response.headers, body, text };
  }

  /** Closes the device's connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/**
 * `base` (scheme, host, port, optional path prefix) joined with `path` (starting with `/`).
 * Path segments are the caller's job: see {@link segment}.
 */
export function endpoint(base: URL, path: string): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = '';
  url.hash = '';
  return url;
}

/** A value as one path segment: percent-encoded, except `:` which macs carry as devices send them. */
export function segment(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':');
}
