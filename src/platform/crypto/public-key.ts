import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The SHA-256 fingerprint of a public key: lowercase hex of its DER SubjectPublicKeyInfo, what
 * `openssl pkey -pubin -outform DER | sha256sum` prints.
 */
export function keyFingerprint(key: KeyObject): string {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** 400 text of an artifact verification key that is not one. */
export const INVALID_ARTIFACT_VERIFY_KEY =
  'public_key must be a PEM public key, RSA or ECDSA (the kinds mender-artifact signs with), of at most 8192 characters';

/**
 * Reads a PEM public key Mender artifacts may be verified with (docs/decisions.md §13): RSA or
 * ECDSA, the kinds `mender-artifact` signs with; `null` when the text is not one.
 */
export function readArtifactVerifyKey(pem: string): KeyObject | null {
  if (pem.length > 8192 || !pem.includes('-----BEGIN')) return null;
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'ec' ? key : null;
  } catch {
    return null;
  }
}
