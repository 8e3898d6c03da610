import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deviceSignature } from '#src/protocols/asvin/auth/signature.js';
import { freePort } from '#test/support/harness.js';
import { loopbackUrls, ROOT, spawnServer } from '#test/support/server-process.js';

// README "Operations": on SIGTERM the server stops accepting, finishes the requests in flight on
// every listener, closes the database, flushes its log and exits 0.

const run = promisify(execFile);
/** Large enough that a paused reader keeps the download in flight (socket buffers are far smaller). */
const ARTIFACT_BYTES = 24 * 1024 * 1024;

/** Resolves once a new TCP connection to the port is refused (the listener is closed). */
async function refused(port: number, deadlineMs: number): Promise<void> {
  for (;;) {
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    if (outcome === 'ECONNREFUSED') return;
    if (Date.now() > deadlineMs) throw new Error(`port ${port} still accepts connections (${outcome})`);
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

/** A response whose body is read only once `resume()` is called. */
interface HeldResponse {
  response: IncomingMessage;
  resume(): Promise<Buffer>;
}

/** GETs `url` and holds the body after its first chunk, so the response stays in flight. */
async function holdDownload(url: string, headers: Record<string, string>, agent: Agent): Promise<HeldResponse> {
  const req = httpRequest(url, { headers, agent });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  const [first] = (await once(response, 'data')) as [Buffer];
  response.pause();
  chunks.push(first);
  return {
    response,
    async resume() {
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.resume();
      await once(response, 'end');
      return Buffer.concat(chunks);
    },
  };
}

/** Starts a POST whose headers the server has (it answered `100 Continue`) and half its body. */
async function holdUpload(url: string, body: string, agent: Agent): Promise<{ finish(): Promise<{ status: number; text: string }> }> {
  const bytes = Buffer.from(body);
  const req: ClientRequest = httpRequest(url, {
    method: 'POST',
    agent,
    headers: { 'Content-Type': 'application/json', 'Content-Length': String(bytes.length), Expect: '100-continue' },
  });
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  await once(req, 'continue');
  const half = Math.floor(bytes.length / 2);
  await new Promise<void>((done) => req.write(bytes.subarray(0, half), () => done()));
  return {
    async finish() {
      req.end(bytes.subarray(half));
      const [response] = await answered;
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      return { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') };
    },
  };
}

describe('graceful shutdown of the server process', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let output = (): string => '';

  async function cli<T>(...args: string[]): Promise<T> {
    const { stdout } = await run(process.execPath, ['bin/firmledger.js', ...args, '--json'], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], DATA_DIR: join(dir, 'data') },
      timeout: 60_000,
    });
    return JSON.parse(stdout) as T;
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-shutdown-'));
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('finishes downloads and a login in flight, refuses new connections on every listener, exits 0', async () => {
    await cli('init');
    const tenant = await cli<{ customer_key: string }>('tenant', 'create', 'acme');
    const key = await cli<{ key: string }>('device-key', 'create', '--tenant', 'acme', '--type', 'ESP32');
    const artifact = randomBytes(ARTIFACT_BYTES);
    await writeFile(join(dir, 'fw.bin'), artifact);
    const firmware = await cli<{ cid: string }>(
      'firmware',
      'publish',
      join(dir, 'fw.bin'),
      '--tenant',
      'acme',
      '--version',
      '2.0.0',
      '--type',
      'ESP32',
    );

    const ports = {
      auth: await freePort(),
      vc: await freePort(),
      bc: await freePort(),
      operator: await freePort(),
      ipfs: await freePort(),
      tools: await freePort(),
      ddi: await freePort(),
      mender: await freePort(),
    };
    const server = spawnServer({ DATA_DIR: join(dir, 'data'), ...loopbackUrls(ports) }, dir);
    child = server.child;
    output = server.output;
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

    const deadline = Date.now() + 20_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${ports.operator}/readyz`).catch(() => undefined);
      if (ready?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`server did not get ready: ${output()}`);
      await new Promise((wake) => setTimeout(wake, 50));
    }

    const login = (timestamp: number) =>
      JSON.stringify({
        device_key: key.key,
        timestamp,
        device_signature: deviceSignature(tenant.customer_key, String(timestamp), key.key),
      });
    const now = Math.floor(Date.now() / 1000);
    const first = await fetch(`http://127.0.0.1:${ports.auth}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: login(now),
    });
    assert.equal(first.status, 200);
    const { token } = (await first.json()) as { token: string };

    // Keep-alive connections, as devices and proxies use them: finishing must not wait for them to time out.
    const agent = new Agent({ keepAlive: true });
    const idle = new Agent({ keepAlive: true });
    for (const port of Object.values(ports)) {
      const warm = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(warm.status, 200);
      await new Promise<void>((done) =>
        httpRequest(`http://127.0.0.1:${port}/healthz`, { agent: idle }, (r) => r.resume().on('end', done)).end(),
      );
    }

    const url = `http://127.0.0.1:${ports.ipfs}/ipfs/${firmware.cid}`;
    const whole = await holdDownload(url, { 'X-Access-Token': token }, agent);
    const ranged = await holdDownload(url, { 'X-Access-Token': token, Range: 'bytes=1000-' }, agent);
    const upload = await holdUpload(`http://127.0.0.1:${ports.auth}/auth/login`, login(now - 1), agent);

    child.kill('SIGTERM');
    await Promise.all(Object.values(ports).map((port) => refused(port, Date.now() + 10_000)));
    assert.equal(child.exitCode, null, 'still running while requests are in flight');

    const loggedIn = await upload.finish();
    assert.equal(loggedIn.status, 200, loggedIn.text);
    assert.match(loggedIn.text, /^\{"token":"[\w-]+\.[\w-]+\.[\w-]+"\}$/);
    assert.equal(whole.response.statusCode, 200);
    const wholeBody = await whole.resume();
    assert.equal(wholeBody.length, ARTIFACT_BYTES);
    assert.equal(createHash('sha256').update(wholeBody).digest('hex'), createHash('sha256').update(artifact).digest('hex'));
    assert.equal(ranged.response.statusCode, 206);
    assert.ok((await ranged.resume()).equals(artifact.subarray(1000)));

    const finishedAt = Date.now();
    const [code, signal] = await exited;
    assert.equal(signal, null, output());
    assert.equal(code, 0, output());
    assert.ok(Date.now() - finishedAt < 3000, `exit took ${Date.now() - finishedAt} ms after the requests finished`);
    agent.destroy();
    idle.destroy();

    const lines = output()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg?: string; context?: string });
    assert.ok(
      lines.some((l) => l.context === 'Shutdown' && /closed/.test(l.msg ?? '')),
      `the last log line is flushed before exit:\n${output()}`,
    );
  });
});
