import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalJson, checkLink, ledgerHash, type LedgerFields } from './ledger-hash.js';

const ZEROS = '0000000000000000000000000000000000000000000000000000000000000000';

const FIRST: LedgerFields = {
  seq: 1,
  tenantId: 7,
  type: 'device.registered',
  subject: 'device:AC:67:B2:01:02:03',
  payload: '{"mac":"AC:67:B2:01:02:03"}',
  createdAt: 1_700_000_000_000,
};

/** Canonical JSON of FIRST written by hand: keys sorted, no whitespace, payload as a JSON string. */
const FIRST_CANONICAL =
  '{"createdAt":1700000000000,"payload":"{\\"mac\\":\\"AC:67:B2:01:02:03\\"}","seq":1,"subject":"device:AC:67:B2:01:02:03","tenantId":7,"type":"device.registered"}';

/** Computed once in the shell: `printf '%s\n%s' <64 zeros> '<FIRST_CANONICAL>' | sha256sum`. */
const FIRST_HASH = '6bd19bb1c690179c8525e8b85be377c521f44d05304eca10aeac73369f447fa3';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The hash rule written out independently (docs/decisions.md §7, ledger-hash.ts docstring):
 * sha256(prev hash + "\n" + canonical JSON of the fields), the canonical JSON built by hand
 * with the keys in sorted order.
 */
function specHash(prevHash: string, f: LedgerFields): string {
  const text =
    `{"createdAt":${f.createdAt},"payload":${JSON.stringify(f.payload)},"seq":${f.seq},` +
    `"subject":${JSON.stringify(f.subject)},"tenantId":${f.tenantId},"type":${JSON.stringify(f.type)}}`;
  return sha256(`${prevHash}\n${text}`);
}

type Entry = LedgerFields & { prevHash: string; hash: string };

/** A three-entry chain linked by specHash. */
function chain(): Entry[] {
  const fields: LedgerFields[] = [
    FIRST,
    {
      seq: 2,
      tenantId: 7,
      type: 'firmware.published',
      subject: 'firmware:1',
      payload: '{"id":1,"version":"1.0.0"}',
      createdAt: 1_700_000_001_000,
    },
    {
      seq: 3,
      tenantId: 8,
      type: 'rollout.started',
      subject: 'rollout:1',
      payload: '{"id":1,"status":"active"}',
      createdAt: 1_700_000_002_000,
    },
  ];
  const entries: Entry[] = [];
  let prevHash = ZEROS;
  for (const f of fields) {
    const hash = specHash(prevHash, f);
    entries.push({ ...f, prevHash, hash });
    prevHash = hash;
  }
  return entries;
}

describe(canonicalJson.name, () => {
  it('sorts keys and drops whitespace', () => {
    assert.equal(canonicalJson({ b: 1, a: 'x', c: [3, 1, 2] }), '{"a":"x","b":1,"c":[3,1,2]}');
  });

  it('does not depend on key insertion order, at any depth', () => {
    const one = { tenant: 1, device: { mac: 'AC:67:B2:01:02:03', name: 'n', meta: { z: 1, a: 2 } }, list: [{ y: 1, x: 2 }] };
    const two = { list: [{ x: 2, y: 1 }], device: { meta: { a: 2, z: 1 }, name: 'n', mac: 'AC:67:B2:01:02:03' }, tenant: 1 };
    assert.equal(canonicalJson(one), canonicalJson(two));
    assert.equal(
      canonicalJson(one),
      '{"device":{"mac":"AC:67:B2:01:02:03","meta":{"a":2,"z":1},"name":"n"},"list":[{"x":2,"y":1}],"tenant":1}',
    );
  });

  it('keeps array order', () => {
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  });

  it('writes numbers and strings as RFC 8785 does', () => {
    assert.equal(
      canonicalJson({ n: 1.0, big: 1e21, small: 1e-7, neg: -0, s: 'é"\n' }),
      '{"big":1e+21,"n":1,"neg":0,"s":"é\\"\\n","small":1e-7}',
    );
  });

  it('orders keys by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    assert.equal(canonicalJson({ b: 1, a: 2, B: 3, é: 4 }), '{"B":3,"a":2,"b":1,"é":4}');
  });

  it('throws for a value with no JSON form', () => {
    assert.throws(() => canonicalJson(undefined), TypeError);
  });
});

describe(ledgerHash.name, () => {
  it('matches the fixed vector computed with sha256sum', () => {
    assert.equal(ledgerHash(ZEROS, FIRST), FIRST_HASH);
  });

  it('is sha256 over prev hash, a newline and the hand-written canonical JSON', () => {
    assert.equal(ledgerHash(ZEROS, FIRST), sha256(`${ZEROS}\n${FIRST_CANONICAL}`));
    const prev = sha256('some earlier entry');
    assert.equal(ledgerHash(prev, FIRST), sha256(`${prev}\n${FIRST_CANONICAL}`));
  });

  it('agrees with the independent rule on other entries', () => {
    for (const entry of chain()) assert.equal(ledgerHash(entry.prevHash, entry), entry.hash, `seq ${entry.seq}`);
  });

  it('ignores fields the hash does not cover (prevHash, hash, extras)', () => {
    const withExtras = { ...FIRST, prevHash: 'x', hash: 'y', id: 99 } as LedgerFields;
    assert.equal(ledgerHash(ZEROS, withExtras), FIRST_HASH);
  });

  it('does not depend on the field order of the object passed in', () => {
    const { seq, tenantId, type, subject, payload, createdAt } = FIRST;
    assert.equal(ledgerHash(ZEROS, { createdAt, payload, subject, type, tenantId, seq }), FIRST_HASH);
  });

  it('changes when any covered field or the previous hash changes', () => {
    const variants: LedgerFields[] = [
      { ...FIRST, seq: 2 },
      { ...FIRST, tenantId: 8 },
      { ...FIRST, type: 'device.deleted' },
      { ...FIRST, subject: 'device:AC:67:B2:01:02:04' },
      { ...FIRST, payload: '{"mac":"AC:67:B2:01:02:04"}' },
      { ...FIRST, createdAt: FIRST.createdAt + 1 },
    ];
    for (const v of variants) assert.notEqual(ledgerHash(ZEROS, v), FIRST_HASH, JSON.stringify(v));
    assert.notEqual(ledgerHash('1'.repeat(64), FIRST), FIRST_HASH);
  });

  it('is lowercase hex, 64 characters', () => {
    assert.match(ledgerHash(ZEROS, FIRST), /^[0-9a-f]{64}$/);
  });

  it('hashes an entry without an actor (null or absent) as entries were hashed before actors were recorded', () => {
    assert.equal(ledgerHash(ZEROS, { ...FIRST, actor: null }), FIRST_HASH);
    assert.equal(ledgerHash(ZEROS, { ...FIRST, actor: undefined }), FIRST_HASH);
  });

  it('covers the actor of an entry that names one, as one more key of the canonical JSON', () => {
    // `"actor"` sorts before `"createdAt"` (UTF-16 order): the hand-written text puts it first.
    const canonical = `{"actor":"user:alice",${FIRST_CANONICAL.slice(1)}`;
    assert.equal(ledgerHash(ZEROS, { ...FIRST, actor: 'user:alice' }), sha256(`${ZEROS}\n${canonical}`));
    assert.notEqual(ledgerHash(ZEROS, { ...FIRST, actor: 'user:alice' }), ledgerHash(ZEROS, { ...FIRST, actor: 'user:bob' }));
  });
});

describe(checkLink.name, () => {
  it('accepts a correctly linked chain, the first entry after the zero hash', () => {
    const [e1, e2, e3] = chain();
    assert.equal(checkLink(null, e1), null);
    assert.equal(checkLink(e1, e2), null);
    assert.equal(checkLink(e2, e3), null);
  });

  it('names the entry whose content does not match its hash', () => {
    const [e1, e2] = chain();
    for (const tampered of [
      { ...e2, payload: '{"id":1,"version":"6.6.6"}' },
      { ...e2, tenantId: 99 },
      { ...e2, type: 'firmware.deleted' },
      { ...e2, subject: 'firmware:2' },
      { ...e2, createdAt: e2.createdAt + 1 },
      { ...e2, hash: '0'.repeat(64) },
      { ...e2, actor: 'user:mallory' },
    ]) {
      const broken = checkLink(e1, tampered);
      assert.ok(broken, JSON.stringify(tampered));
      assert.equal(broken.seq, 2);
      assert.match(broken.reason, /hash|content/i);
    }
  });

  it('lets a changed and rehashed entry link to its predecessor (detection falls to the next entry)', () => {
    const [e1, e2] = chain();
    const changed = { ...e2, payload: '{"id":1,"version":"6.6.6"}' };
    const rehashed = { ...changed, hash: specHash(changed.prevHash, changed) };
    assert.equal(checkLink(e1, rehashed), null, 'a lone rehashed entry links to its predecessor');
  });

  it('names the next entry when a changed entry was rehashed (its prevHash no longer matches)', () => {
    const [e1, e2, e3] = chain();
    const changed = { ...e2, payload: '{"id":1,"version":"6.6.6"}' };
    const rehashed = { ...changed, hash: specHash(e1.hash, changed) };
    const broken = checkLink(rehashed, e3);
    assert.ok(broken);
    assert.equal(broken.seq, 3);
    assert.match(broken.reason, /previous/i);
  });

  it('names the entry whose prevHash does not match the entry before it', () => {
    const [e1, e2] = chain();
    const relinked = { ...e2, prevHash: '1'.repeat(64) };
    const selfConsistent = { ...relinked, hash: specHash(relinked.prevHash, relinked) };
    for (const entry of [relinked, selfConsistent]) {
      const broken = checkLink(e1, entry);
      assert.ok(broken);
      assert.equal(broken.seq, 2);
    }
    assert.match(checkLink(e1, selfConsistent)!.reason, /previous/i);
  });

  it('requires the first entry to follow the zero hash', () => {
    const first = { ...FIRST, prevHash: '1'.repeat(64) };
    const broken = checkLink(null, { ...first, hash: specHash(first.prevHash, first) });
    assert.ok(broken);
    assert.equal(broken.seq, 1);
  });

  it('names the entry whose seq does not follow (a gap, a repeat, a wrong start)', () => {
    const [e1, e2, e3] = chain();
    // e3 straight after e1: entry 2 was removed.
    const gap = checkLink(e1, e3);
    assert.ok(gap);
    assert.equal(gap.seq, 3);
    assert.match(gap.reason, /sequence|seq/i);
    // e2 after itself.
    const repeat = checkLink(e2, e2);
    assert.ok(repeat);
    assert.equal(repeat.seq, 2);
    // A chain starting at 2.
    const start = checkLink(null, { ...e2, prevHash: ZEROS, hash: specHash(ZEROS, e2) });
    assert.ok(start);
    assert.equal(start.seq, 2);
  });
});
