import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkpointText,
  COSIGNATURE_ED25519,
  ED25519,
  generateSigner,
  parseCheckpoint,
  parseNote,
  signNote,
  verifyCosignature,
  verifyNote,
  type NoteSigner,
} from '#src/platform/crypto/signed-note.js';
import { freePort, get, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { runCli, spawnCli, type RunningCli } from '#test/support/operator.js';

/*
 * C2SP tlog-witness between firmledger processes over HTTP: two `firmledger ledger witness --serve`
 * witnesses, and the log, which sends them its checkpoints (LEDGER_WITNESS_URLS) and publishes a
 * checkpoint once both cosigned it (LEDGER_WITNESS_QUORUM 2).
 */

/** Resolves with `probe`'s value once it is truthy, asking every 100 ms; fails after `seconds`. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, seconds = 20): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${seconds} s: ${what}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

/** An `add-checkpoint` body. */
const addBody = (old: number, proof: string[], note: string): string => `old ${old}\n${proof.map((p) => `${p}\n`).join('')}\n${note}`;
const addCheckpoint = (witness: string, body: string): Promise<Answer> => request('POST', `${witness}/add-checkpoint`, { rawBody: body });

describe('C2SP tlog-witness: two firmledger witnesses and the log', () => {
  const log = generateSigner('firmledger/witness-spec', ED25519);
  const witnesses = [generateSigner('witness.test/w1', COSIGNATURE_ED25519), generateSigner('witness.test/w2', COSIGNATURE_ED25519)];
  let dir: string;
  let app: TestApp;
  let tenant: TestTenant;
  const running: RunningCli[] = [];
  let urls: string[] = [];
  let version = 0;

  /** Starts a witness server (the CLI) on a free port; answers its submission prefix. */
  async function startWitness(signer: NoteSigner, name: string, prefix = ''): Promise<{ url: string; process: RunningCli }> {
    const keyFile = join(dir, `${name}.key`);
    await writeFile(keyFile, `${signer.secret}\n`, { mode: 0o600 });
    const port = await freePort();
    const started = await spawnCli(
      {},
      /serves C2SP tlog-witness for \S+ at (\S+)\/add-checkpoint\n/,
      'ledger',
      'witness',
      '--serve',
      `http://127.0.0.1:${port}${prefix}`,
      '--state',
      join(dir, `${name}.json`),
      '--key',
      keyFile,
      '--log-key',
      log.text,
    );
    running.push(started);
    return { url: started.ready[1], process: started };
  }

  const published = async (): Promise<{ size: number; note: string } | null> => {
    const answer = await get(`${app.urls.bc}/checkpoint`);
    if (answer.status !== 200) return null;
    return { size: parseCheckpoint(parseNote(answer.text).text).size, note: answer.text };
  };
  const treeSize = async (): Promise<number> => parseCheckpoint(parseNote((await get(`${app.urls.bc}/checkpoint/latest`)).text).text).size;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-tlog-witness-'));
    urls = [(await startWitness(witnesses[0], 'w1', '/w1')).url, (await startWitness(witnesses[1], 'w2')).url];
    app = await startTestApp({
      LEDGER_SIGNING_KEY: log.secret,
      LEDGER_WITNESS_KEYS: witnesses.map((w) => w.text).join(','),
      LEDGER_WITNESS_QUORUM: '2',
      LEDGER_WITNESS_URLS: urls.join(','),
    });
    tenant = await app.createTenant('tlog witness', 'ESP32');
  });
  after(async () => {
    await app.close();
    for (const process of running) await process.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('has both witnesses cosign each new checkpoint over HTTP, and publishes it once both did', async () => {
    assert.match(urls[0], /^http:\/\/127\.0\.0\.1:\d+\/w1$/);
    const first = await eventually('a checkpoint cosigned by both witnesses', async () => {
      const size = await treeSize();
      const current = await published();
      return current?.size === size ? current : null;
    });
    const note = parseNote(first.note);
    assert.ok(verifyNote(note, log));
    for (const witness of witnesses) assert.ok(verifyCosignature(note, witness), `${witness.name} cosigned tree size ${first.size}`);
    for (let i = 0; i < 3; i++) await app.publishFirmware(tenant, `4.0.${version++}`, Buffer.from(`witnessed over tlog-witness ${i}`));
    const grown = await eventually('the grown tree cosigned by both', async () => {
      const current = await published();
      return current && current.size === first.size + 3 ? current : null;
    });
    for (const witness of witnesses)
      assert.ok(verifyCosignature(parseNote(grown.note), witness), `${witness.name}: consistent with ${first.size}`);
    const state = JSON.parse(await readFile(join(dir, 'w2.json'), 'utf8')) as { checkpoints: Array<{ size: number }> };
    assert.deepEqual(state.checkpoints.at(-1)?.size, first.size + 3, 'the witness stored what it cosigned');
    const origin = createHash('sha256').update(log.name).digest('hex');
    const monitoring = await get(`${urls[0]}/${origin}/checkpoint`);
    assert.equal(monitoring.status, 200, monitoring.text);
    assert.equal(parseCheckpoint(parseNote(monitoring.text).text).size, first.size + 3);
    assert.ok(verifyCosignature(parseNote(monitoring.text), witnesses[0]));
  });

  it('refuses a forked checkpoint signed with the log key (422), and tells a stale client its size (409)', async () => {
    const current = (await published())!;
    const { size, root } = parseCheckpoint(parseNote(current.note).text);
    const fork = (n: number, r: Buffer) => signNote(checkpointText({ origin: log.name, size: n, root: r }), log);
    const stale = await addCheckpoint(urls[0], addBody(0, [], current.note));
    assert.equal(stale.status, 409, stale.text);
    assert.equal(stale.headers.get('content-type'), 'text/x.tlog.size');
    assert.equal(stale.text, `${size}\n`);
    const sameSize = await addCheckpoint(urls[0], addBody(size, [], fork(size, randomBytes(32))));
    assert.equal(sameSize.status, 422, sameSize.text);
    assert.match(sameSize.text, /the log forked/);
    const proof = ((await get(`${app.urls.bc}/proof/consistency?from=1&to=${size}`)).body as { proof: string[] }).proof;
    const extended = await addCheckpoint(urls[1], addBody(size, proof, fork(size + 5, randomBytes(32))));
    assert.equal(extended.status, 422, extended.text);
    assert.match(extended.text, /does not extend the cosigned one/);
    const impostor = generateSigner(log.name, ED25519);
    const unsigned = signNote(checkpointText({ origin: log.name, size: size + 1, root }), impostor);
    assert.equal((await addCheckpoint(urls[0], addBody(size, [], unsigned))).status, 403);
    const elsewhere = signNote(checkpointText({ origin: 'another/log', size: 1, root }), generateSigner('another/log', ED25519));
    assert.equal((await addCheckpoint(urls[0], addBody(0, [], elsewhere))).status, 404);
    assert.equal((await addCheckpoint(urls[0], 'old x\n\n')).status, 400);
    assert.equal((await addCheckpoint(urls[0], addBody(size + 1, [], current.note))).status, 400, 'old beyond the checkpoint');
    await app.publishFirmware(tenant, `4.0.${version++}`, Buffer.from('after the fork attempts'));
    const next = await eventually('the witnesses still cosign the real log', async () => {
      const latest = await published();
      return latest && latest.size === size + 1 ? latest : null;
    });
    for (const witness of witnesses) assert.ok(verifyCosignature(parseNote(next.note), witness));
  });

  it('stores atomically: of two requests from the same old size, one is cosigned and the other told the new size', async () => {
    const third = generateSigner('witness.test/w3', COSIGNATURE_ED25519);
    const { url } = await startWitness(third, 'w3');
    const a = (await get(`${app.urls.bc}/checkpoint/latest`)).text;
    const sizeA = parseCheckpoint(parseNote(a).text).size;
    assert.equal((await addCheckpoint(url, addBody(0, [], a))).status, 200);
    await app.publishFirmware(tenant, `4.0.${version++}`, Buffer.from('B'));
    const b = (await get(`${app.urls.bc}/checkpoint/latest`)).text;
    await app.publishFirmware(tenant, `4.0.${version++}`, Buffer.from('C'));
    const c = (await get(`${app.urls.bc}/checkpoint/latest`)).text;
    const proofTo = async (note: string) =>
      (
        (await get(`${app.urls.bc}/proof/consistency?from=${sizeA}&to=${parseCheckpoint(parseNote(note).text).size}`)).body as {
          proof: string[];
        }
      ).proof;
    const answers = await Promise.all([
      addCheckpoint(url, addBody(sizeA, await proofTo(b), b)),
      addCheckpoint(url, addBody(sizeA, await proofTo(c), c)),
    ]);
    assert.deepEqual(answers.map((x) => x.status).sort(), [200, 409], answers.map((x) => x.text).join(' | '));
    const winner = answers.findIndex((x) => x.status === 200);
    const loser = answers[1 - winner];
    assert.equal(loser.text, `${parseCheckpoint(parseNote([b, c][winner]).text).size}\n`, 'the loser learns the winner’s size');
  });

  it('keeps a second witness process off a state file in use', async () => {
    const pull = await runCli(
      app,
      'ledger',
      'witness',
      '--state',
      join(dir, 'w1.json'),
      '--key',
      join(dir, 'w1.key'),
      '--from',
      app.urls.bc,
    );
    assert.equal(pull.code, 1, pull.stdout);
    assert.match(pull.stderr, /the witness state \S+w1\.json is in use by another witness \(pid \d+/);
  });
});
