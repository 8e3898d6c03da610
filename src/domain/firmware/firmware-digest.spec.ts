import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { computeDigests, isCidV0 } from './firmware-digest.js';

const KIB_256 = 262_144;
const MIB = 1_048_576;

/**
 * Kubo's deterministic test data (ipfs/kubo test/cli/testutils/random_deterministic.go,
 * `DeterministicRandomReaderBytes`): the ChaCha20 (RFC 8439) keystream with
 * key = sha256(utf8(seed)), an all-zero 96-bit nonce and block counter 0.
 * Node's `chacha20` cipher takes a 16-byte IV = 32-bit little-endian counter ‖ 96-bit nonce,
 * so an all-zero IV is the same stream. Yields `size` bytes in 1 MiB chunks.
 */
async function* chacha20Stream(key: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  const cipher = createCipheriv('chacha20', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(MIB);
  for (let left = size; left > 0; left -= MIB) {
    yield cipher.update(zeros.subarray(0, Math.min(left, MIB)));
  }
}

function kuboDeterministic(size: number, seed: string): AsyncGenerator<Uint8Array> {
  return chacha20Stream(createHash('sha256').update(seed, 'utf8').digest(), size);
}

/** MD5/SHA-256/size of a stream, straight from node:crypto, for comparison. */
async function reference(source: AsyncIterable<Uint8Array>) {
  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  let size = 0;
  for await (const chunk of source) {
    md5.update(chunk);
    sha256.update(chunk);
    size += chunk.byteLength;
  }
  return { size, md5: md5.digest('hex'), sha256: sha256.digest('hex') };
}

async function* inPieces(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const end = Math.min(bytes.length, offset + sizes[i % sizes.length]);
    yield bytes.subarray(offset, end);
    offset = end;
  }
}

describe('computeDigests', () => {
  it('test-data generator is ChaCha20 (RFC 8439 §A.1 test vector #1: zero key, zero nonce)', async () => {
    const chunks: Uint8Array[] = [];
    for await (const c of chacha20Stream(new Uint8Array(32), 64)) chunks.push(c);
    assert.equal(
      Buffer.concat(chunks).toString('hex'),
      '76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7' +
        'da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586',
    );
  });

  it('"hello world\\n" (12 bytes) gives the CID and hashes `ipfs add` gives', async () => {
    const bytes = Buffer.from('hello world\n');
    const d = await computeDigests(bytes);
    // ipfs/go-ipfs README.md, "Some things to try":
    //   echo "hello world" > hello; ipfs add hello  →  QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o
    assert.equal(d.cid, 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o');
    assert.equal(d.size, 12);
    // Well-known digests of "hello world\n" (e.g. `echo "hello world" | md5sum / sha256sum`).
    assert.equal(d.md5, '6f5902ac237024bdd0c176cb93063dc4');
    assert.equal(d.sha256, 'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447');
    assert.deepEqual({ size: d.size, md5: d.md5, sha256: d.sha256 }, await reference(inPieces(bytes, [bytes.length])));
  });

  it('"hello world" (11 bytes, no newline) gives kubo\'s default CID', async () => {
    // ipfs/kubo test/cli/add_test.go (shortStringCidV0, "produced cid version: implicit default
    // (CIDv0)") and test/cli/cid_profiles_test.go (unixfs-v0-2015 SmallFileCID, also run as "default").
    const d = await computeDigests(Buffer.from('hello world'));
    assert.equal(d.cid, 'Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD');
    assert.equal(d.size, 11);
  });

  it('the empty file gives the well-known empty-file CID and the empty-input hashes', async () => {
    const d = await computeDigests(new Uint8Array(0));
    // ipfs/js-ipfs-unixfs packages/ipfs-unixfs-importer/test/importer.spec.js
    // ("doesn't yield anything on empty file", with the go-ipfs-compatible CIDv0 defaults).
    assert.equal(d.cid, 'QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH');
    assert.equal(d.size, 0);
    assert.equal(d.md5, 'd41d8cd98f00b204e9800998ecf8427e');
    assert.equal(d.sha256, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // The same for an empty stream.
    assert.deepEqual(await computeDigests((async function* () {})()), d);
  });

  // Multi-chunk vectors: ipfs/kubo test/cli/cid_profiles_test.go, unixfs-v0-2015 profile, which
  // the same file also runs with no --profile ("default") because it is kubo's default.
  // Input is kubo's DeterministicRandomReaderBytes(size, seed) piped to `ipfs add`.
  const kuboVectors: Array<{
    name: string;
    size: number;
    seed: string;
    cid: string;
    source: string;
  }> = [
    {
      name: 'exactly one chunk (262144 B): single node, no links',
      size: KIB_256,
      seed: 'chunk-v0-seed',
      cid: 'QmWmRj3dFDZdb6ABvbmKhEL6TmPbAfBZ1t5BxsEyJrcZhE',
      source: 'kubo@c626ee94 cid_profiles_test.go FileAtChunkSizeCID',
    },
    {
      name: 'one byte over a chunk (262145 B): root + 2 TFile leaves',
      size: KIB_256 + 1,
      seed: 'chunk-v0-seed',
      cid: 'QmYyLxtzZyW22zpoVAtKANLRHpDjZtNeDjQdJrcQNWoRkJ',
      source: 'kubo@c626ee94 cid_profiles_test.go FileOverChunkSizeCID',
    },
    {
      name: '174 chunks (44544 KiB): one layer of exactly 174 links',
      size: 174 * KIB_256,
      seed: 'v0-seed',
      cid: 'QmUbBALi174SnogsUzLpYbD4xPiBSFANF4iztWCsHbMKh2',
      source: 'kubo@c626ee94 and @00fb95d6 cid_profiles_test.go FileAtMaxLinksCID',
    },
    {
      name: '174 chunks + 1 byte: rebalanced to two layers',
      size: 174 * KIB_256 + 1,
      seed: 'v0-seed',
      cid: 'QmV81WL765sC8DXsRhE5fJv2rwhS4icHRaf3J9Zk5FdRnW',
      source: 'kubo@c626ee94 cid_profiles_test.go FileOverMaxLinksCID',
    },
    {
      name: '175 chunks (44800 KiB): rebalanced to two layers',
      size: 175 * KIB_256,
      seed: 'v0-seed',
      cid: 'QmepeWtdmS1hHXx1oZXsPUv6bMrfRRKfZcoPPU4eEfjnbf',
      source: 'kubo@00fb95d6 cid_profiles_test.go FileOverMaxLinksCID ("44800KiB")',
    },
  ];

  for (const v of kuboVectors) {
    it(`kubo vector, ${v.name}`, { timeout: 120_000 }, async () => {
      // Source of the expected CID: ipfs/kubo test/cli/cid_profiles_test.go — see v.source.
      const d = await computeDigests(kuboDeterministic(v.size, v.seed));
      assert.equal(d.cid, v.cid, v.source);
      assert.deepEqual({ size: d.size, md5: d.md5, sha256: d.sha256 }, await reference(kuboDeterministic(v.size, v.seed)));
      assert.equal(d.size, v.size);
    });
  }

  it('a stream in odd-sized pieces gives the same digests as the whole buffer', async () => {
    const bytes = randomBytes(3 * KIB_256 + 12_345);
    const whole = await computeDigests(bytes);
    const pieced = await computeDigests(inPieces(bytes, [1, 7, 65_536, 262_143, 300_000, 13]));
    assert.deepEqual(pieced, whole);
    assert.deepEqual({ size: whole.size, md5: whole.md5, sha256: whole.sha256 }, await reference(inPieces(bytes, [MIB])));
    assert.ok(isCidV0(whole.cid));
  });

  it('rejects a stream that yields something other than bytes', async () => {
    const bad = (async function* () {
      yield Buffer.from('ok');
      yield 'not bytes' as unknown as Uint8Array;
    })();
    await assert.rejects(computeDigests(bad), TypeError);
  });

  it('passes on an error from the source', async () => {
    const failing = (async function* () {
      yield Buffer.alloc(10);
      throw new Error('disk on fire');
    })();
    await assert.rejects(computeDigests(failing), /disk on fire/);
  });
});

describe('isCidV0', () => {
  it('accepts CIDv0 strings', () => {
    assert.equal(isCidV0('QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o'), true);
    assert.equal(isCidV0('QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH'), true);
  });

  it('rejects CIDv1', () => {
    // CIDv1 of "hello world": raw leaf and dag-pb (ipfs/kubo test/cli/add_test.go).
    assert.equal(isCidV0('bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e'), false);
    assert.equal(isCidV0('bafybeihykld7uyxzogax6vgyvag42y7464eywpf55gxi5qpoisibh3c5wa'), false);
  });

  it('rejects garbage', () => {
    for (const text of [
      '',
      'hello',
      'Qm',
      // right length and prefix, but '0', 'O', 'I' and 'l' are not base58btc
      'Qm0OIlzSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5',
      // valid CID with whitespace or a character missing / extra
      ' QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o',
      'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o\n',
      'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5',
      'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5oo',
      // a valid base58 string of 46 chars that is not a sha2-256 multihash
      'Qmzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz',
      '/ipfs/QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o',
    ]) {
      assert.equal(isCidV0(text), false, JSON.stringify(text));
    }
  });
});
