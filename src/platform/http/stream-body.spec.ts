import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { requestBodyStream, StreamBodyMessages } from './stream-body.js';

/**
 * Serves one request whose client sends `sent` bytes of a longer declared body and then goes
 * away; `beforeWrap` runs on the server before the body is wrapped (a guard or lookup). Resolves
 * with how reading the wrapped body ended: its error message, or `complete`.
 */
async function readAbandonedBody(sent: number, beforeWrap: (raw: IncomingMessage) => Promise<void>): Promise<string> {
  let outcome!: Promise<string>;
  const server = createServer((raw) => {
    outcome = (async () => {
      await beforeWrap(raw);
      const body = requestBodyStream(raw);
      const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
      try {
        await pipeline(body, sink);
        return 'complete';
      } catch (error) {
        return (error as Error).message;
      }
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const client = request({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(sent + 1024) },
    });
    client.on('error', () => undefined);
    client.write(Buffer.alloc(sent));
    await once(server, 'request');
    client.destroy();
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000).unref());
    return await Promise.race([outcome, timeout]);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('requestBodyStream', () => {
  it('ends a read with 400 when the client goes away mid-body', async () => {
    assert.equal(await readAbandonedBody(512, () => new Promise((resolve) => setTimeout(resolve, 0))), StreamBodyMessages.interrupted);
  });

  it('ends a read with 400 when the client went away before the body was wrapped', async () => {
    const gone = (raw: IncomingMessage) =>
      new Promise<void>((resolve) => {
        raw.on('error', () => undefined); // 'aborted', as Fastify's own listener takes it
        if (raw.destroyed) resolve();
        else raw.once('close', () => resolve());
      });
    assert.equal(await readAbandonedBody(512, gone), StreamBodyMessages.interrupted);
  });
});
