import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create as createTar } from 'tar';
import { keyFingerprint } from '#src/platform/crypto/public-key.js';
import { menderArtifactReader, type MenderArtifactInfo } from './mender-artifact.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A tar archive (gzipped when asked) of `files`, in their order, made with node-tar. */
function tarOf(files: [string, Buffer][], gzip = false): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'mender-artifact-spec-'));
  try {
    for (const [name, bytes] of files) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), bytes);
    }
    createTar(
      { file: join(dir, 'out.tar'), cwd: dir, sync: true, portable: true, gzip },
      files.map(([name]) => name),
    );
    return readFileSync(join(dir, 'out.tar'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Options {
  name?: string;
  deviceTypes?: string[];
  version?: number;
  signer?: KeyObject;
  /** Change the header after the manifest was written. */
  tamperHeader?: boolean;
  /** Members in another order, or others. */
  members?: (parts: Record<string, Buffer>) => [string, Buffer][];
}

/** A Mender artifact (format 3) as mender-artifact writes one: version, manifest, [manifest.sig], header.tar.gz, data/0000.tar.gz. */
function artifact(options: Options = {}): Buffer {
  const version = Buffer.from(JSON.stringify({ format: 'mender', version: options.version ?? 3 }));
  const headerInfo = {
    payloads: [{ type: 'single-file' }],
    artifact_provides: { artifact_name: options.name ?? 'release-1', artifact_group: 'stable' },
    artifact_depends: { device_type: options.deviceTypes ?? ['rpi4', 'rpi3'] },
  };
  const typeInfo = {
    type: 'single-file',
    artifact_provides: { 'rootfs-image.single-file.version': options.name ?? 'release-1' },
    clears_artifact_provides: ['rootfs-image.single-file.*'],
  };
  const header = tarOf(
    [
      ['header-info', Buffer.from(JSON.stringify(headerInfo))],
      ['headers/0000/type-info', Buffer.from(JSON.stringify(typeInfo))],
    ],
    true,
  );
  const payload = Buffer.from('hello from release-1\n');
  const data = tarOf([['hello.txt', payload]], true);
  const manifest = Buffer.from(
    [`${sha256(payload)}  data/0000/hello.txt`, `${sha256(header)}  header.tar.gz`, `${sha256(version)}  version`, ''].join('\n'),
  );
  const parts: Record<string, Buffer> = {
    version,
    manifest,
    'header.tar.gz': options.tamperHeader ? tarOf([['header-info', Buffer.from('{}')]], true) : header,
    'data/0000.tar.gz': data,
  };
  if (options.signer) {
    const signature =
      options.signer.asymmetricKeyType === 'ec'
        ? sign('sha256', manifest, { key: options.signer, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', manifest, options.signer);
    parts['manifest.sig'] = Buffer.from(signature.toString('base64'));
  }
  const order = ['version', 'manifest', 'manifest.sig', 'header.tar.gz', 'data/0000.tar.gz'].filter((name) => name in parts);
  return tarOf(options.members ? options.members(parts) : order.map((name): [string, Buffer] => [name, parts[name]]));
}

/** Reads `bytes` through the reader: what it says, and the bytes that came out. */
async function read(bytes: Buffer, key: KeyObject | null = null): Promise<{ info: MenderArtifactInfo; out: Buffer }> {
  const reader = menderArtifactReader(key);
  const chunks: Buffer[] = [];
  // Small chunks, as a request body arrives.
  const pieces = Array.from({ length: Math.ceil(bytes.length / 700) }, (_, i) => bytes.subarray(i * 700, (i + 1) * 700));
  await pipeline(
    Readable.from(pieces),
    reader.stream,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    }),
  );
  return { info: await reader.info, out: Buffer.concat(chunks) };
}

async function refusal(bytes: Buffer, key: KeyObject | null = null): Promise<string> {
  try {
    await read(bytes, key);
  } catch (error) {
    assert.equal((error as Error).name, 'MalformedMenderArtifact', String(error));
    return (error as Error).message;
  }
  assert.fail('the artifact was not refused');
}

describe(menderArtifactReader.name, () => {
  it('reads the header of an artifact while its bytes pass through unchanged', async () => {
    const bytes = artifact();
    const { info, out } = await read(bytes);
    assert.ok(out.equals(bytes));
    assert.deepEqual(info, {
      artifactName: 'release-1',
      artifactGroup: 'stable',
      deviceTypesCompatible: ['rpi4', 'rpi3'],
      provides: { 'rootfs-image.single-file.version': 'release-1' },
      clearsProvides: ['rootfs-image.single-file.*'],
      payloadTypes: ['single-file'],
      signed: false,
      verifiedWith: null,
    });
  });

  it('notes a signature without a key, and checks RSA and ECDSA signatures with the tenant’s key', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    assert.deepEqual(
      [
        (await read(artifact({ signer: rsa.privateKey }))).info.signed,
        (await read(artifact({ signer: rsa.privateKey }))).info.verifiedWith,
      ],
      [true, null],
    );
    for (const pair of [rsa, ec]) {
      const { info } = await read(artifact({ signer: pair.privateKey }), pair.publicKey);
      assert.deepEqual([info.signed, info.verifiedWith], [true, keyFingerprint(pair.publicKey)]);
    }
    assert.match(await refusal(artifact({ signer: rsa.privateKey }), ec.publicKey), /signature does not verify/);
    assert.match(await refusal(artifact(), ec.publicKey), /not signed, and the tenant requires signed artifacts/);
  });

  it('refuses what is not a publishable artifact, saying why', async () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('no tar here, just text'.repeat(40)), /^not a tar archive/],
      [artifact({ tamperHeader: true }), /"header.tar.gz" does not match its checksum in the manifest/],
      [artifact({ version: 2 }), /format version 2 is not supported/],
      [artifact({ name: 'x'.repeat(65) }), /artifact name must be 1 to 64 printable characters/],
      [artifact({ deviceTypes: [] }), /compatible device types must be a list/],
      [
        artifact({
          members: (p) => [
            ['manifest', p['manifest']],
            ['version', p['version']],
            ['header.tar.gz', p['header.tar.gz']],
          ],
        }),
        /first member is "manifest"/,
      ],
      [
        artifact({
          members: (p) => [
            ['version', p['version']],
            ['manifest', p['manifest']],
          ],
        }),
        /no header.tar.gz/,
      ],
      [
        artifact({
          members: (p) => [
            ['version', p['version']],
            ['manifest', p['manifest']],
            ['header.tar.xz', p['header.tar.gz']],
          ],
        }),
        /header is header.tar.xz/,
      ],
      [
        artifact({
          members: (p) => [
            ['version', p['version']],
            ['header.tar.gz', p['header.tar.gz']],
          ],
        }),
        /no manifest/,
      ],
      [
        artifact({
          members: (p) => [
            ['version', p['version']],
            ['manifest', p['manifest']],
            ['header.tar.gz', p['header.tar.gz']],
            ['evil.sh', Buffer.from('x')],
          ],
        }),
        /unexpected member "evil.sh"/,
      ],
      [tarOf([['version', Buffer.from('{}')]], true), /gzip-compressed/],
    ];
    for (const [bytes, message] of cases) assert.match(await refusal(bytes), message);
  });
});
