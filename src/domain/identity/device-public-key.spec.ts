import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { isPrivateKeyPem, readDevicePublicKey, verifiesDeviceSignature } from './device-public-key.js';

const pem = (key: { export(options: { type: 'spki'; format: 'pem' }): string | Buffer }) =>
  key.export({ type: 'spki', format: 'pem' }) as string;

describe(readDevicePublicKey.name, () => {
  it('reads RSA of 2048 bits or more, ECDSA on P-256, P-384, P-521 and Ed25519 keys, with their SPKI fingerprint', () => {
    const pairs = [
      generateKeyPairSync('rsa', { modulusLength: 2048 }),
      generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
      generateKeyPairSync('ec', { namedCurve: 'secp384r1' }),
      generateKeyPairSync('ec', { namedCurve: 'secp521r1' }),
      generateKeyPairSync('ed25519'),
    ];
    assert.deepEqual(
      pairs.map(({ publicKey }) => readDevicePublicKey(pem(publicKey))?.type),
      ['rsa', 'ec', 'ec', 'ec', 'ed25519'],
    );
    const { publicKey } = pairs[1];
    const read = readDevicePublicKey(pem(publicKey))!;
    assert.equal(
      read.fingerprint,
      createHash('sha256')
        .update(publicKey.export({ type: 'spki', format: 'der' }))
        .digest('hex'),
    );
    assert.equal(read.pem, pem(publicKey));
  });

  it('refuses small RSA keys, other curves, other key types and text that is no PEM key', () => {
    const refused = [
      pem(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey),
      pem(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey),
      pem(generateKeyPairSync('x25519').publicKey),
      'not a key',
      '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n',
    ];
    for (const text of refused) assert.equal(readDevicePublicKey(text), null, text.slice(0, 40));
  });

  it('refuses a private key of every form, though node:crypto derives its public half from it', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const ed = generateKeyPairSync('ed25519').privateKey;
    const privates = [
      rsa.export({ type: 'pkcs8', format: 'pem' }) as string,
      rsa.export({ type: 'pkcs1', format: 'pem' }) as string,
      ec.export({ type: 'sec1', format: 'pem' }) as string,
      ed.export({ type: 'pkcs8', format: 'pem' }) as string,
      ec.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' }) as string,
    ];
    for (const text of privates) {
      assert.equal(isPrivateKeyPem(text), true, text.slice(0, 40));
      assert.equal(readDevicePublicKey(text), null, text.slice(0, 40));
    }
    assert.equal(isPrivateKeyPem(pem(generateKeyPairSync('ed25519').publicKey)), false);
  });
});

describe(verifiesDeviceSignature.name, () => {
  const message = Buffer.from('{"id_data":"{\\"mac\\":\\"02:00:00:00:00:01\\"}","tenant_token":"t","pubkey":"…"}\n');

  it('checks signatures as the Mender client makes them: RSA PKCS #1 v1.5 and ECDSA (DER) over SHA-256, Ed25519 over the bytes', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const ed = generateKeyPairSync('ed25519');
    const cases = [
      [rsa.publicKey, sign('sha256', message, rsa.privateKey)],
      [ec.publicKey, sign('sha256', message, { key: ec.privateKey, dsaEncoding: 'der' })],
      [ed.publicKey, sign(null, message, ed.privateKey)],
    ] as const;
    for (const [publicKey, signature] of cases) {
      const key = readDevicePublicKey(pem(publicKey))!;
      assert.equal(verifiesDeviceSignature(key, message, signature), true, key.type);
      assert.equal(verifiesDeviceSignature(key, message.subarray(0, -1), signature), false, `${key.type}: other bytes`);
      assert.equal(verifiesDeviceSignature(key, message, Buffer.alloc(0)), false, `${key.type}: no signature`);
    }
    const ecKey = readDevicePublicKey(pem(ec.publicKey))!;
    const raw = sign('sha256', message, { key: ec.privateKey, dsaEncoding: 'ieee-p1363' });
    assert.equal(verifiesDeviceSignature(ecKey, message, raw), false, 'ECDSA must be DER, as the client sends it');
  });
});
