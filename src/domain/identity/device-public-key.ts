import { constants, createHash, createPrivateKey, createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * The public key a Mender device authenticates with (docs/decisions.md §13): the client sends it
 * as PEM in every authentication request and signs the request's exact bytes with its private key
 * (`X-MEN-Signature`). RSA (2048 bits or more), ECDSA on P-256, P-384 or P-521, and Ed25519 are
 * accepted, the kinds the Mender client generates or loads.
 */

/** A device public key, read and normalized. */
export interface DevicePublicKey {
  key: KeyObject;
  /** The key as PEM SubjectPublicKeyInfo (`-----BEGIN PUBLIC KEY-----`), what is kept. */
  pem: string;
  /** Lowercase hex SHA-256 of its DER SubjectPublicKeyInfo (`openssl pkey -pubin -outform DER | sha256sum`). */
  fingerprint: string;
  /** `rsa`, `ec` or `ed25519`. */
  type: 'rsa' | 'ec' | 'ed25519';
}

/** 400 text of a public key that is not one a device may use. */
export const INVALID_PUBLIC_KEY = 'pubkey must be a PEM public key: RSA of 2048 bits or more, ECDSA on P-256, P-384 or P-521, or Ed25519';

/** Longest PEM accepted, characters (an RSA 8192 key is about 1,500). */
const PEM_MAX_LENGTH = 8192;

/** The curves accepted for ECDSA device keys. */
const CURVES = ['prime256v1', 'secp384r1', 'secp521r1'];

/** 400 text of a private key sent where the public key belongs (it is neither kept nor logged). */
export const PRIVATE_KEY_SENT = 'pubkey must be the public key: a private key was sent; it is not kept, and should be replaced';

/**
 * Reads a device public key from PEM, or `null` when it is not one {@link INVALID_PUBLIC_KEY} allows.
 * A private key is refused too (see {@link isPrivateKeyPem}), though node:crypto would derive its public half.
 */
export function readDevicePublicKey(pem: string): DevicePublicKey | null {
  if (pem.length > PEM_MAX_LENGTH || !pem.includes('-----BEGIN') || isPrivateKeyPem(pem)) return null;
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    return null;
  }
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (type === 'rsa') {
    if ((details.modulusLength ?? 0) < 2048) return null;
  } else if (type === 'ec') {
    if (!CURVES.includes(details.namedCurve ?? '')) return null;
  } else if (type !== 'ed25519') {
    return null;
  }
  const der = key.export({ type: 'spki', format: 'der' });
  return {
    key,
    pem: key.export({ type: 'spki', format: 'pem' }) as string,
    fingerprint: createHash('sha256').update(der).digest('hex'),
    type,
  };
}

/**
 * Whether PEM text holds a private key (PKCS #8, PKCS #1, SEC 1, encrypted or not): node:crypto
 * reads it as one, or its label says so (an encrypted key it cannot read without the passphrase).
 */
export function isPrivateKeyPem(pem: string): boolean {
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem)) return true;
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `signature` signs `message` with the device key, as the Mender client signs its
 * authentication request (docs/decisions.md §13): RSA PKCS #1 v1.5 over SHA-256, ECDSA over SHA-256
 * with an ASN.1 DER signature, Ed25519 over the message itself.
 */
export function verifiesDeviceSignature(publicKey: DevicePublicKey, message: Buffer, signature: Buffer): boolean {
  if (signature.length === 0) return false;
  try {
    switch (publicKey.type) {
      case 'rsa':
        return verify('sha256', message, { key: publicKey.key, padding: constants.RSA_PKCS1_PADDING }, signature);
      case 'ec':
        return verify('sha256', message, { key: publicKey.key, dsaEncoding: 'der' }, signature);
      case 'ed25519':
        return verify(null, message, publicKey.key, signature);
    }
  } catch {
    return false;
  }
}
