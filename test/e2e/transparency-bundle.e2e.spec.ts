import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decode as cborDecode } from 'cborg';
import { COSIGNATURE_ED25519, generateSigner } from '#src/platform/crypto/signed-note.js';
import { get, request, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { runCli } from '#test/support/operator.js';

/*
 * The offline proof bundle (GET {bc_url}/firmware/:id/bundle): one document with the firmware's
 * ledger entry, its inclusion proof, the witnessed checkpoint and the TUF metadata, checked by
 * scripts/verify-proof.py with python3 and openssl only, no network.
 */

interface Bundle {
  format: string;
  seq: number;
  leaf_text: string;
  checkpoint: string;
  firmware: { id: number; sha256: string; cid: string; device_type: string };
  tuf: { target: string; root: unknown[]; targets: { signed: { targets: Record<string, { length: number }> } } };
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('offline proof bundles', () => {
  const witness = generateSigner('witness.test/bundle', COSIGNATURE_ED25519);
  const image = Buffer.from('firmware image bytes for the bundle spec\n'.repeat(64));
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  let dir: string;
  let logKey: string;
  let firmwareId: number;

  /** Runs verify-proof.py on `bundle`; never throws on its exit code. */
  const verify = async (bundle: unknown, ...extra: string[]): Promise<{ code: number; stdout: string }> => {
    await writeFile(join(dir, 'bundle.json'), JSON.stringify(bundle));
    try {
      const { stdout } = await promisify(execFile)('python3', [
        'scripts/verify-proof.py',
        '--key',
        logKey,
        ...extra,
        join(dir, 'bundle.json'),
        join(dir, 'firmware.bin'),
      ]);
      return { code: 0, stdout };
    } catch (error) {
      return { code: (error as { code: number }).code, stdout: (error as { stdout: string }).stdout };
    }
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-bundle-'));
    await writeFile(join(dir, 'firmware.bin'), image);
    await writeFile(join(dir, 'witness.key'), `${witness.secret}\n`, { mode: 0o600 });
    app = await startTestApp({ LEDGER_WITNESS_KEYS: witness.text, LEDGER_WITNESS_QUORUM: '1' });
    tenant = await app.createTenant('bundle', 'ESP32');
    firmwareId = (await app.publishFirmware(tenant, '5.0.0', image)).id;
    token = await app.login(tenant);
    logKey = (await runCli(app, 'ledger', 'key')).stdout.trim();
    const witnessed = await runCli(
      app,
      'ledger',
      'witness',
      '--state',
      join(dir, 'witness.json'),
      '--key',
      join(dir, 'witness.key'),
      '--from',
      app.urls.bc,
      '--log-key',
      logKey,
    );
    assert.equal(witnessed.code, 0, witnessed.stderr + witnessed.stdout);
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers one JSON document: the entry, its leaf text and proof, the cosigned checkpoint, the TUF metadata', async () => {
    const answer = await get(`${app.urls.bc}/firmware/${firmwareId}/bundle`, token);
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    const bundle = answer.body as Bundle;
    assert.equal(bundle.format, 'firmledger-proof-bundle/v1');
    assert.equal(bundle.firmware.sha256, sha256(image));
    assert.equal(bundle.tuf.target, bundle.firmware.cid);
    assert.equal(bundle.tuf.targets.signed.targets[bundle.firmware.cid].length, image.length);
    assert.deepEqual(
      bundle.tuf.root[0],
      (await get(`${app.urls.ipfs}/tuf/1.root.json`, token)).body,
      'the root a device is provisioned with',
    );
    assert.match(bundle.checkpoint, /\n\u2014 witness\.test\/bundle \S+\n$/, 'the checkpoint carries the witness’s cosignature');
    assert.equal((await get(`${app.urls.bc}/firmware/${firmwareId}/bundle`)).status, 401);
    const other = await app.createTenant('bundle other', 'ESP32');
    const foreign = await get(`${app.urls.bc}/firmware/${firmwareId}/bundle`, await app.login(other));
    assert.deepEqual([foreign.status, foreign.body], [404, { message: 'Firmware not found' }]);
  });

  it('answers the same structure as CBOR when asked (Accept: application/cbor)', async () => {
    const json = (await get(`${app.urls.bc}/firmware/${firmwareId}/bundle`, token)).body;
    const cbor = await request('GET', `${app.urls.bc}/firmware/${firmwareId}/bundle`, { token, headers: { accept: 'application/cbor' } });
    assert.equal(cbor.status, 200);
    assert.equal(cbor.headers.get('content-type'), 'application/cbor');
    assert.ok(cbor.bytes.length < Buffer.byteLength(JSON.stringify(json)), 'smaller than the JSON');
    assert.deepEqual(cborDecode(cbor.bytes), json);
  });

  it('verifies offline with scripts/verify-proof.py: checkpoint, cosignature, inclusion, TUF chain and target, image', async () => {
    const bundle = (await get(`${app.urls.bc}/firmware/${firmwareId}/bundle`, token)).body as Bundle;
    await writeFile(join(dir, '1.root.json'), (await get(`${app.urls.ipfs}/tuf/1.root.json`, token)).text);
    const { code, stdout } = await verify(bundle, '--witness', witness.text, '--tuf-root', join(dir, '1.root.json'));
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^ok {2}cosigned by the witness witness\.test\/bundle at \d{4}-\d\d-\d\dT/m);
    assert.match(stdout, new RegExp(`^ok {2}entry ${bundle.seq} \\(firmware\\.published firmware:${firmwareId}\\)`, 'm'));
    assert.match(stdout, /^ok {2}TUF root v1 reached from the root in \S+1\.root\.json$/m);
    assert.match(stdout, new RegExp(`^ok {2}TUF targets v\\d+ .* name ${bundle.firmware.cid}: ${image.length} bytes`, 'm'));
    assert.match(stdout, new RegExp(`SHA-256 ${sha256(image)} is the one recorded`));
    assert.match(stdout, /^verified$/m);
  });

  it('fails offline, naming it, for a forged TUF target, a rewritten leaf, an unknown witness and expired metadata', async () => {
    const bundle = (await get(`${app.urls.bc}/firmware/${firmwareId}/bundle`, token)).body as Bundle;
    const forged = structuredClone(bundle);
    forged.tuf.targets.signed.targets[bundle.firmware.cid].length += 1;
    assert.match((await verify(forged)).stdout, /^FAILED: TUF: targets v\d+ is not signed by the targets keys of root v1$/m);
    const rewritten = { ...bundle, leaf_text: bundle.leaf_text.replace('5.0.0', '5.0.1') };
    assert.match((await verify(rewritten)).stdout, /^FAILED: the leaf text does not hash to the leaf hash$/m);
    const stranger = generateSigner('witness.test/stranger', COSIGNATURE_ED25519);
    const unknown = await verify(bundle, '--witness', stranger.text);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stdout, /^FAILED: the checkpoint carries no valid cosignature of the witness witness\.test\/stranger$/m);
    const late = await verify(bundle, '--at', '2099-01-01T00:00:00Z');
    assert.match(late.stdout, /^FAILED: TUF: root v1 expired \S+$/m);
  });

  it('has firmledger ledger verify check the TUF metadata, and name a repository whose metadata was altered', async () => {
    const ok = await runCli(app, 'ledger', 'verify');
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^TUF ok: 1 repositories, 4 metadata files verified \(root chains, signatures, versions\)$/m);
    const [row] = await app.database.query<{ body: string; version: number | string }>(
      "SELECT body, version FROM tuf_metadata WHERE role = 'targets' ORDER BY version DESC",
    );
    const altered = JSON.parse(row.body) as { signed: { targets: Record<string, { length: number }> } };
    for (const target of Object.values(altered.signed.targets)) target.length += 1;
    await app.database.execute("UPDATE tuf_metadata SET body = $1 WHERE role = 'targets' AND version = $2", [
      JSON.stringify(altered),
      row.version,
    ]);
    const broken = await runCli(app, 'ledger', 'verify', '--json');
    assert.equal(broken.code, 1, broken.stdout);
    const result = JSON.parse(broken.stdout) as {
      ok: boolean;
      first_break: unknown;
      tuf: { first_break: { repository: string; reason: string } };
    };
    assert.equal(result.ok, false);
    assert.equal(result.first_break, null, 'the ledger itself holds');
    assert.deepEqual(result.tuf.first_break, {
      repository: `tenant ${tenant.id} ESP32`,
      reason: `targets v${Number(row.version)} is not signed by a threshold of the targets keys of any root`,
    });
  });
});
