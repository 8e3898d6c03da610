import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ledgerHash, ledgerLeafText } from '#src/domain/ledger/ledger-hash.js';
import { leafHash, verifyConsistency, verifyInclusion } from '#src/domain/ledger/merkle.js';
import {
  COSIGNATURE_ED25519,
  generateSigner,
  parseCheckpoint,
  parseNote,
  parseVerifier,
  verifyCosignature,
  verifyNote,
} from '#src/platform/crypto/signed-note.js';
import { get, post, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { operatorClient, runCli, type OperatorClient } from '#test/support/operator.js';

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');
const b64 = (text: string): Buffer => Buffer.from(text, 'base64');

interface EntryProof {
  seq: number;
  leaf_index: number;
  tree_size: number;
  leaf_hash: string;
  proof: string[];
  checkpoint: string;
  entry: { seq: number; type: string; subject: string; payload: Record<string, unknown>; hash: string; prev_hash: string };
  leaf_text: string;
}

/** A stored ledger row as both engines return it. */
interface Row {
  seq: number | string;
  tenant_id: number | string;
  type: string;
  subject: string;
  payload: string;
  created_at: number | string;
  actor: string | null;
  prev_hash: string;
  hash: string;
}

/** The checkpoint in `note`, checked against the log's verifier key; its size and root. */
function checkedCheckpoint(note: string, verifierKey: string): { size: number; root: Buffer; origin: string } {
  const parsed = parseNote(note);
  assert.ok(verifyNote(parsed, parseVerifier(verifierKey)), `signed by ${verifierKey}:\n${note}`);
  return parseCheckpoint(parsed.text);
}

/**
 * Checks a firmware proof as a stranger would: the leaf text hashes to the leaf hash and the entry
 * hash, the audit path leads to the checkpoint's root, and the checkpoint carries the log's signature.
 */
function checkEntryProof(proof: EntryProof, verifierKey: string): void {
  const checkpoint = checkedCheckpoint(proof.checkpoint, verifierKey);
  assert.equal(checkpoint.size, proof.tree_size);
  assert.equal(leafHash(proof.leaf_text).toString('base64'), proof.leaf_hash);
  assert.equal(sha256(proof.leaf_text), proof.entry.hash);
  assert.ok(
    verifyInclusion(proof.leaf_index, proof.tree_size, b64(proof.leaf_hash), proof.proof.map(b64), checkpoint.root),
    'the audit path leads to the root',
  );
}

describe('transparency log: checkpoints and proofs', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  let operator: OperatorClient;
  let verifierKey: string;
  const image = Buffer.from('firmware image bytes for the transparency spec\n'.repeat(40));
  let firmwareId: number;

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant('transparency', 'ESP32');
    firmwareId = (await app.publishFirmware(tenant, '1.0.0', image)).id;
    token = await app.login(tenant);
    assert.equal(
      (await post(`${app.urls.vc}/api/device/register`, { mac: 'AC:67:B2:40:00:01', firmware_version: '1.0.0' }, token)).status,
      200,
    );
    operator = operatorClient(app, await app.createOperatorToken());
    const key = await operator.get('/ledger/key');
    assert.equal(key.status, 200, key.text);
    verifierKey = key.text.trim();
  });
  after(() => app.close());

  it('publishes a signed checkpoint of every entry, in the C2SP format, as text', async () => {
    const answer = await get(`${app.urls.bc}/checkpoint`);
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
    const checkpoint = checkedCheckpoint(answer.text, verifierKey);
    const rows = await app.database.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM ledger_entry');
    assert.equal(checkpoint.size, Number(rows[0].n));
    assert.equal(checkpoint.origin, verifierKey.split('+')[0]);
    assert.equal(verifierKey.split('+')[0], `firmledger/${new URL(app.urls.bc).host}`, 'the default origin names the BC host');
    const lines = answer.text.split('\n');
    assert.equal(lines[3], '', 'a blank line before the signature');
    assert.match(lines[4], /^\u2014 firmledger\/\S+ [A-Za-z0-9+/]+=*$/);
    assert.equal((await operator.get('/ledger/checkpoint')).text, answer.text, 'operators see the same checkpoint');
  });

  it("proves the firmware's ledger entry to a device, by GET and POST, and the entry names the image's SHA-256", async () => {
    const byPath = await get(`${app.urls.bc}/firmware/${firmwareId}/proof`, token);
    assert.equal(byPath.status, 200, byPath.text);
    const byBody = await request('POST', `${app.urls.bc}/firmware/proof`, { token, body: { id: String(firmwareId) } });
    assert.deepEqual(byBody.body, byPath.body);
    const proof = byPath.body as EntryProof;
    checkEntryProof(proof, verifierKey);
    assert.equal(proof.entry.type, 'firmware.published');
    assert.equal(proof.entry.payload['sha256'], sha256(image));
    const [prev, json] = [proof.leaf_text.slice(0, 64), JSON.parse(proof.leaf_text.slice(65)) as { payload: string }];
    assert.equal(prev, proof.entry.prev_hash);
    assert.equal((JSON.parse(json.payload) as { sha256: string }).sha256, sha256(image), 'the leaf text itself names the digest');
  });

  it('is checked by scripts/verify-proof.py with only the public key, Python and openssl', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firmledger-verify-proof-'));
    try {
      const proof = await get(`${app.urls.bc}/firmware/${firmwareId}/proof`, token);
      await writeFile(join(dir, 'proof.json'), proof.text);
      await writeFile(join(dir, 'firmware.bin'), image);
      await writeFile(join(dir, 'other.bin'), Buffer.concat([image, Buffer.from('!')]));
      const script = (file: string) =>
        promisify(execFile)('python3', ['scripts/verify-proof.py', '--key', verifierKey, join(dir, 'proof.json'), join(dir, file)]);
      const { stdout } = await script('firmware.bin');
      assert.match(stdout, /^ok {2}checkpoint of firmledger\/\S+: tree size \d+, signature verified with openssl$/m);
      assert.match(stdout, new RegExp(`SHA-256 ${sha256(image)} is the one recorded`));
      assert.match(stdout, /^verified$/m);
      await assert.rejects(
        script('other.bin'),
        (error: { code: number; stdout: string }) => error.code === 1 && /FAILED: the image's SHA-256/.test(error.stdout),
      );
      const forged = JSON.parse(proof.text) as EntryProof;
      forged.leaf_text = forged.leaf_text.replace('1.0.0', '1.0.9');
      await writeFile(join(dir, 'proof.json'), JSON.stringify(forged));
      await assert.rejects(script('firmware.bin'), (error: { stdout: string }) =>
        /FAILED: the leaf text does not hash to the leaf hash/.test(error.stdout),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("proves a device's newest entry, and answers unknown ids and missing tokens as the lookups do", async () => {
    const proof = await get(`${app.urls.bc}/device/ac-67-b2-40-00-01/proof`, token);
    assert.equal(proof.status, 200, proof.text);
    checkEntryProof(proof.body as EntryProof, verifierKey);
    assert.equal((proof.body as EntryProof).entry.subject, 'device:AC:67:B2:40:00:01');
    const byBody = await request('POST', `${app.urls.bc}/device/proof`, { token, body: { id: 'AC:67:B2:40:00:01' } });
    assert.deepEqual(byBody.body, proof.body);
    assert.deepEqual((await get(`${app.urls.bc}/device/AC:67:B2:40:00:99/proof`, token)).body, { message: 'Device not found' });
    assert.deepEqual((await get(`${app.urls.bc}/firmware/999999/proof`, token)).body, { message: 'Firmware not found' });
    assert.equal((await get(`${app.urls.bc}/firmware/${firmwareId}/proof`)).status, 401);
    const other = await app.createTenant('transparency other', 'ESP32');
    assert.equal(
      (await get(`${app.urls.bc}/firmware/${firmwareId}/proof`, await app.login(other))).status,
      404,
      "another tenant's firmware",
    );
  });

  it('answers inclusion proofs of hashes to anyone, and consistency proofs between any two sizes', async () => {
    const first = checkedCheckpoint((await get(`${app.urls.bc}/checkpoint`)).text, verifierKey);
    await app.publishFirmware(tenant, '1.0.1', Buffer.from('next'));
    await app.publishFirmware(tenant, '1.0.2', Buffer.from('after next'));
    const second = checkedCheckpoint((await get(`${app.urls.bc}/checkpoint`)).text, verifierKey);
    assert.equal(second.size, first.size + 2);
    for (let seq = 1; seq <= second.size; seq++) {
      const answer = await get(`${app.urls.bc}/proof/inclusion/${seq}`);
      assert.equal(answer.status, 200, answer.text);
      const proof = answer.body as EntryProof;
      assert.equal(proof.tree_size, second.size);
      assert.ok(verifyInclusion(seq - 1, second.size, b64(proof.leaf_hash), proof.proof.map(b64), second.root), `entry ${seq}`);
    }
    const old = (await get(`${app.urls.bc}/proof/inclusion/2?tree_size=${first.size}`)).body as EntryProof;
    assert.ok(verifyInclusion(1, first.size, b64(old.leaf_hash), old.proof.map(b64), first.root), 'against the older checkpoint');
    assert.ok(old.checkpoint, 'the checkpoint of that size comes along');
    const consistency = await get(`${app.urls.bc}/proof/consistency?from=${first.size}&to=${second.size}`);
    assert.equal(consistency.status, 200, consistency.text);
    const c = consistency.body as { proof: string[]; from_root: string; to_root: string };
    assert.ok(verifyConsistency(first.size, second.size, c.proof.map(b64), first.root, second.root));
    assert.equal(c.from_root, first.root.toString('base64'));
    const byOperator = await operator.get(`/ledger/consistency?from=${first.size}`);
    assert.deepEqual(byOperator.body, consistency.body, 'to defaults to the published checkpoint');
    const entry = await operator.get('/ledger/entries/1/proof');
    assert.equal(entry.status, 200, entry.text);
    checkEntryProof(entry.body as EntryProof, verifierKey);
  });

  it('refuses bad proof parameters with a message: exactly {message} on the blockchain component, with the field on the operator API', async () => {
    const size = checkedCheckpoint((await get(`${app.urls.bc}/checkpoint`)).text, verifierKey).size;
    /** Path on the blockchain component, status, message, and the parameter the operator API's answer names. */
    const cases: Array<[string, number, string, string | undefined]> = [
      ['/proof/inclusion/0', 400, 'seq must be a whole number from 1', 'seq'],
      ['/proof/inclusion/abc', 400, 'seq must be a whole number from 1', 'seq'],
      ['/proof/inclusion/99999', 404, 'Ledger entry 99999 not found', undefined],
      [
        `/proof/inclusion/1?tree_size=${size + 5}`,
        400,
        `tree_size ${size + 5} is larger than the ledger's tree (${size} entries)`,
        'tree_size',
      ],
      ['/proof/inclusion/1?tree_size=x', 400, 'tree_size must be a whole number', 'tree_size'],
      ['/proof/consistency', 400, 'from is required', 'from'],
      ['/proof/consistency?from=0', 400, 'from must be at least 1', 'from'],
      [`/proof/consistency?from=3&to=2`, 400, 'from (3) must not be larger than to (2)', 'from'],
      [`/proof/consistency?from=1&to=${size + 1}`, 400, `tree_size ${size + 1} is larger than the ledger's tree (${size} entries)`, 'to'],
    ];
    for (const [path, status, message, field] of cases) {
      const answer: Answer = await get(`${app.urls.bc}${path}`);
      assert.equal(answer.status, status, `${path}: ${answer.text}`);
      assert.deepEqual(answer.body, { message }, path);
      // The same refusal on the operator API's routes (`/ledger/entries/:seq/proof`, `/ledger/consistency`).
      const operatorPath = path
        .replace(/^\/proof\/inclusion\/([^?]+)/, '/ledger/entries/$1/proof')
        .replace(/^\/proof\/consistency/, '/ledger/consistency');
      const byOperator = await operator.get(operatorPath);
      assert.equal(byOperator.status, status, `${operatorPath}: ${byOperator.text}`);
      assert.deepEqual(byOperator.body, field === undefined ? { message } : { message, field }, operatorPath);
    }
    const cosign = await request('POST', `${app.urls.bc}/checkpoint/cosignature`, { body: { checkpoint: 'not a note' } });
    assert.equal(cosign.status, 400, cosign.text);
  });
});

describe('ledger verify names an altered history', () => {
  let app: TestApp;
  let operator: OperatorClient;

  before(async () => {
    app = await startTestApp();
    const tenant = await app.createTenant('verify', 'ESP32');
    for (let i = 0; i < 6; i++) await app.publishFirmware(tenant, `2.0.${i}`, Buffer.from(`image ${i}`));
    operator = operatorClient(app, await app.createOperatorToken());
    assert.equal((await get(`${app.urls.bc}/checkpoint`)).status, 200, 'a checkpoint is signed over every entry');
  });
  after(() => app.close());

  const verify = async () =>
    (await operator.get('/ledger/verify')).body as {
      ok: boolean;
      checkpoints: number;
      first_break: { seq: number; reason: string } | null;
    };

  it('is ok over the chain, the tree and the checkpoint', async () => {
    const result = await verify();
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.checkpoints, 1);
  });

  it('names the entry whose content was rewritten with the chain hashes recomputed after it', async () => {
    const rows = await app.database.query<Row>('SELECT * FROM ledger_entry ORDER BY seq');
    const target = 4;
    let prev = rows[target - 2].hash;
    for (const row of rows.slice(target - 1)) {
      const fields = {
        seq: Number(row.seq),
        tenantId: Number(row.tenant_id),
        type: row.type,
        subject: row.subject,
        payload: Number(row.seq) === target ? row.payload.replace(/"version":"[^"]+"/, '"version":"6.6.6"') : row.payload,
        createdAt: Number(row.created_at),
        actor: row.actor,
      };
      const hash = ledgerHash(prev, fields);
      assert.equal(sha256(ledgerLeafText(prev, fields)), hash);
      await app.database.execute('UPDATE ledger_entry SET payload = $1, prev_hash = $2, hash = $3 WHERE seq = $4', [
        fields.payload,
        prev,
        hash,
        fields.seq,
      ]);
      prev = hash;
    }
    const result = await verify();
    assert.equal(result.ok, false);
    assert.deepEqual(result.first_break, { seq: target, reason: 'its tree leaf does not match the entries' });
  });
});

describe('witnesses: a quorum of cosignatures, and a truncated ledger named', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let token: string;
  let dir: string;
  let logKey: string;
  const witnessKey = generateSigner('witness.test/w1', COSIGNATURE_ED25519);
  let keyFile: string;
  let stateFile: string;
  let version = 0;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-witness-'));
    keyFile = join(dir, 'witness.key');
    stateFile = join(dir, 'witness.json');
    await writeFile(keyFile, `${witnessKey.secret}\n`, { mode: 0o600 });
    app = await startTestApp({ LEDGER_WITNESS_KEYS: witnessKey.text, LEDGER_WITNESS_QUORUM: '1' });
    tenant = await app.createTenant('witnessed', 'ESP32');
    token = await app.login(tenant);
    const key = await runCli(app, 'ledger', 'key');
    assert.equal(key.code, 0, key.stderr);
    logKey = key.stdout.trim();
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  const runWitness = () =>
    runCli(app, 'ledger', 'witness', '--state', stateFile, '--from', app.urls.bc, '--key', keyFile, '--log-key', logKey);
  const publish = async (): Promise<number> =>
    (await app.publishFirmware(tenant, `3.0.${version++}`, Buffer.from(`witnessed ${version}`))).id;
  const treeSize = async (): Promise<number> => checkedCheckpoint((await get(`${app.urls.bc}/checkpoint/latest`)).text, logKey).size;

  it('publishes no checkpoint before the witness cosigned one, then the cosigned one', async () => {
    const none = await get(`${app.urls.bc}/checkpoint`);
    assert.equal(none.status, 404, none.text);
    assert.deepEqual(none.body, { message: 'No checkpoint carries the 1 witness cosignatures required yet' });
    const witnessed = await runWitness();
    assert.equal(witnessed.code, 0, witnessed.stderr + witnessed.stdout);
    assert.match(witnessed.stdout, /^witness: first checkpoint, tree size \d+, cosigned/);
    const published = await get(`${app.urls.bc}/checkpoint`);
    assert.equal(published.status, 200, published.text);
    const note = parseNote(published.text);
    assert.ok(verifyNote(note, parseVerifier(logKey)));
    assert.ok(verifyCosignature(note, parseVerifier(witnessKey.text)), 'it carries the witness cosignature');
  });

  it('proves a new entry only once a witness cosigned a checkpoint holding it', async () => {
    const id = await publish();
    const early = await get(`${app.urls.bc}/firmware/${id}/proof`, token);
    assert.equal(early.status, 409, early.text);
    assert.match((early.body as { message: string }).message, /is not in the published checkpoint yet/);
    const witnessed = await runWitness();
    assert.equal(witnessed.code, 0, witnessed.stderr + witnessed.stdout);
    assert.match(witnessed.stdout, /^witness: tree size \d+ is consistent with \d+, cosigned/);
    const proof = await get(`${app.urls.bc}/firmware/${id}/proof`, token);
    assert.equal(proof.status, 200, proof.text);
    checkEntryProof(proof.body as EntryProof, logKey);
  });

  it('names the first missing tree size after the newest ledger rows are deleted by hand, as ledger verify does', async () => {
    for (let i = 0; i < 2; i++) {
      await publish();
      assert.equal((await runWitness()).code, 0);
    }
    const size = await treeSize();
    const kept = size - 2;
    assert.equal(await app.database.execute('DELETE FROM ledger_entry WHERE seq > $1', [kept]), 2);
    const witnessed = await runWitness();
    assert.equal(witnessed.code, 1, witnessed.stdout);
    assert.equal(
      witnessed.stderr + witnessed.stdout,
      `witness: the log's history differs from the witnessed one at tree size ${kept + 1} (the log now has ${kept} entries; it had at least ${kept + 1}); they agree up to tree size ${kept}\n`,
    );
    const verify = await runCli(app, 'ledger', 'verify');
    assert.equal(verify.code, 1, verify.stdout);
    assert.equal(
      verify.stdout.split('\n')[0],
      `ledger BROKEN at tree size ${kept + 1}: checkpoint of tree size ${kept + 1} is beyond the ledger's ${kept} entries: entries ${kept + 1} to ${kept + 1} are missing`,
    );
    assert.match(verify.stdout, /^TUF ok: \d+ repositories, \d+ metadata files verified/m, 'the TUF metadata is checked too');
  });

  it('still names it after the truncated ledger grew past the witnessed size with other entries', async () => {
    const kept = await treeSize();
    for (let i = 0; i < 3; i++) await publish();
    const witnessed = await runWitness();
    assert.equal(witnessed.code, 1, witnessed.stdout);
    assert.match(
      witnessed.stdout,
      new RegExp(`differs from the witnessed one at tree size ${kept + 1}; they agree up to tree size ${kept}`),
    );
    const json = await runCli(app, 'ledger', 'witness', '--state', stateFile, '--from', app.urls.bc, '--key', keyFile, '--json');
    assert.equal(json.code, 1);
    assert.equal((JSON.parse(json.stdout) as { first_differing_size: number }).first_differing_size, kept + 1);
  });
});
