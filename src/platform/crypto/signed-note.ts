import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Signed notes (C2SP `signed-note`), the checkpoints written in them (C2SP `tlog-checkpoint`)
 * and witness cosignatures (C2SP `tlog-cosignature`, Ed25519), with Ed25519 from `node:crypto`.
 *
 * A note is text ending in a newline, a blank line, then lines `— <key name> base64(key id ||
 * signature)`. Keys are written as Go's `golang.org/x/mod/sumdb/note` writes them: a verifier key
 * `<name>+<hex key id>+base64(type || public key)`, a signer key `PRIVATE+KEY+<name>+<hex key
 * id>+base64(type || 32-byte seed)`.
 */

/** Signature type of a log's Ed25519 note signature. */
export const ED25519 = 0x01;
/** Signature type of a timestamped Ed25519 checkpoint cosignature. */
export const COSIGNATURE_ED25519 = 0x04;

const EM_DASH = '\u2014';
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/** A key that checks signatures of one name and key id. */
export interface NoteVerifier {
  name: string;
  /** 4 bytes. */
  keyId: Buffer;
  /** {@link ED25519} or {@link COSIGNATURE_ED25519}. */
  type: number;
  /** The 32-byte Ed25519 public key. */
  publicKey: Buffer;
  /** `<name>+<hex id>+base64(type || public key)`. */
  text: string;
}

/** A verifier that can also sign. */
export interface NoteSigner extends NoteVerifier {
  privateKey: KeyObject;
  /** `PRIVATE+KEY+<name>+<hex id>+base64(type || seed)`: the secret; never logged. */
  secret: string;
}

/** A malformed key, note or checkpoint. */
export class NoteFormatError extends Error {}

/** `SHA-256(name || "\n" || type || public key)[:4]` (signed-note key id). */
export function keyId(name: string, type: number, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(name, 'utf8')
    .update('\n')
    .update(Buffer.from([type]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

/** Key names are non-empty and hold neither spaces nor `+`. */
function checkName(name: string): void {
  if (name === '' || /[\s+]/u.test(name)) throw new NoteFormatError(`key name "${name}" must be non-empty, without spaces or "+"`);
}

function verifierOf(name: string, type: number, publicKey: Buffer): NoteVerifier {
  checkName(name);
  const id = keyId(name, type, publicKey);
  return {
    name,
    keyId: id,
    type,
    publicKey,
    text: `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.from([type]), publicKey]).toString('base64')}`,
  };
}

function signerOf(name: string, type: number, seed: Buffer): NoteSigner {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const verifier = verifierOf(name, type, Buffer.from(jwk.x!, 'base64url'));
  const secret = `PRIVATE+KEY+${name}+${verifier.keyId.toString('hex')}+${Buffer.concat([Buffer.from([type]), seed]).toString('base64')}`;
  return { ...verifier, privateKey, secret };
}

/** A new random Ed25519 signer of `type` ({@link ED25519} for a log, {@link COSIGNATURE_ED25519} for a witness). */
export function generateSigner(name: string, type: number): NoteSigner {
  const { privateKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  return signerOf(name, type, der.subarray(der.length - 32));
}

/**
 * Reads a signer key (`PRIVATE+KEY+<name>+<hex id>+base64(type || seed)`).
 * @throws NoteFormatError when it is not one, or its key id does not match.
 */
export function parseSigner(text: string): NoteSigner {
  const parts = text.trim().split('+');
  if (parts.length < 5 || parts[0] !== 'PRIVATE' || parts[1] !== 'KEY')
    throw new NoteFormatError('not a signer key (PRIVATE+KEY+<name>+<id>+<key>)');
  const [name, id] = [parts[2], parts[3]];
  const material = Buffer.from(parts.slice(4).join('+'), 'base64');
  if (material.length !== 33 || (material[0] !== ED25519 && material[0] !== COSIGNATURE_ED25519)) {
    throw new NoteFormatError('signer key must hold a type byte 1 or 4 and a 32-byte Ed25519 seed');
  }
  const signer = signerOf(name, material[0], material.subarray(1));
  if (signer.keyId.toString('hex') !== id) throw new NoteFormatError(`signer key id ${id} does not match its key`);
  return signer;
}

/**
 * Reads a verifier key (`<name>+<hex id>+base64(type || public key)`).
 * @throws NoteFormatError when it is not one, or its key id does not match.
 */
export function parseVerifier(text: string): NoteVerifier {
  const parts = text.trim().split('+');
  if (parts.length < 3 || !/^[0-9a-f]{8}$/.test(parts[1]))
    throw new NoteFormatError(`not a verifier key (<name>+<id>+<key>): "${text.trim()}"`);
  const material = Buffer.from(parts.slice(2).join('+'), 'base64');
  if (material.length !== 33 || (material[0] !== ED25519 && material[0] !== COSIGNATURE_ED25519)) {
    throw new NoteFormatError('verifier key must hold a type byte 1 or 4 and a 32-byte Ed25519 public key');
  }
  const verifier = verifierOf(parts[0], material[0], material.subarray(1));
  if (verifier.keyId.toString('hex') !== parts[1]) throw new NoteFormatError(`verifier key id ${parts[1]} does not match its key`);
  return verifier;
}

/** One signature line of a note. */
export interface NoteSignature {
  name: string;
  keyId: Buffer;
  /** The signature bytes after the key id. */
  signature: Buffer;
  /** The whole line, without its newline. */
  line: string;
}

/** A note split into its text (with the final newline) and its signature lines. */
export interface ParsedNote {
  text: string;
  signatures: NoteSignature[];
}

/** Most signature lines read from one note. */
const MAX_SIGNATURES = 100;

/**
 * Splits a signed note at its last blank line.
 * @throws NoteFormatError when it is not a signed note.
 */
export function parseNote(note: string): ParsedNote {
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note)) throw new NoteFormatError('a note holds no control characters but newlines');
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n'))
    throw new NoteFormatError('a note is text, a blank line and signature lines, each ending in a newline');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new NoteFormatError(`more than ${MAX_SIGNATURES} signatures`);
  const signatures = lines.map((line) => {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/]+={0,2})$/u.exec(line);
    const bytes = m ? Buffer.from(m[2], 'base64') : Buffer.alloc(0);
    if (!m || bytes.length < 5) throw new NoteFormatError(`not a signature line: "${line}"`);
    return { name: m[1], keyId: bytes.subarray(0, 4), signature: bytes.subarray(4), line };
  });
  return { text, signatures };
}

/** The signature line of `signer` over `text` (an {@link ED25519} signer). */
export function signatureLine(text: string, signer: NoteSigner): string {
  const signature = sign(null, Buffer.from(text, 'utf8'), signer.privateKey);
  return `${EM_DASH} ${signer.name} ${Buffer.concat([signer.keyId, signature]).toString('base64')}`;
}

/** `text` signed by `signer`, with `extra` signature lines after its own. */
export function signNote(text: string, signer: NoteSigner, extra: string[] = []): string {
  if (!text.endsWith('\n')) throw new NoteFormatError('note text must end with a newline');
  return `${text}\n${[signatureLine(text, signer), ...extra].join('\n')}\n`;
}

const publicKeyObject = (verifier: NoteVerifier): KeyObject =>
  createPublicKey({ key: Buffer.concat([SPKI_ED25519, verifier.publicKey]), format: 'der', type: 'spki' });

/** Whether `signature` names `verifier` (name and key id): only such lines are checked, others are ignored. */
export const isSignatureOf = (signature: NoteSignature, verifier: NoteVerifier): boolean =>
  signature.name === verifier.name && signature.keyId.equals(verifier.keyId);

/** Whether the note's text carries a valid {@link ED25519} signature of `verifier`. */
export function verifyNote(note: ParsedNote, verifier: NoteVerifier): boolean {
  return note.signatures.some(
    (s) =>
      isSignatureOf(s, verifier) &&
      verifier.type === ED25519 &&
      verify(null, Buffer.from(note.text, 'utf8'), publicKeyObject(verifier), s.signature),
  );
}

/** The C2SP tlog-checkpoint body. */
export interface Checkpoint {
  origin: string;
  /** Number of leaves. */
  size: number;
  /** 32-byte root hash. */
  root: Buffer;
}

/** `origin\nsize\nbase64(root)\n`: the note text of a checkpoint. */
export function checkpointText(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.root.toString('base64')}\n`;
}

/**
 * Reads a checkpoint's note text (extension lines are kept out of the result).
 * @throws NoteFormatError when it is not one.
 */
export function parseCheckpoint(text: string): Checkpoint {
  const [origin, size, root] = text.split('\n');
  const hash = Buffer.from(root ?? '', 'base64');
  if (!origin || !/^(0|[1-9]\d{0,15})$/.test(size ?? '') || hash.length !== 32 || hash.toString('base64') !== root) {
    throw new NoteFormatError('a checkpoint is an origin line, a tree size line and a base64 root hash line');
  }
  return { origin, size: Number(size), root: hash };
}

/** `cosignature/v1\ntime <t>\n` followed by the checkpoint text: what an Ed25519 cosignature signs. */
const cosignedMessage = (text: string, time: bigint): Buffer => Buffer.from(`cosignature/v1\ntime ${time}\n${text}`, 'utf8');

/**
 * A witness's cosignature line over a checkpoint's note text (C2SP tlog-cosignature, Ed25519):
 * the signature is the 8-byte big-endian POSIX time followed by the Ed25519 signature.
 * @param timeSeconds the time of cosigning, seconds since the epoch.
 */
export function cosignatureLine(text: string, witness: NoteSigner, timeSeconds: number): string {
  if (witness.type !== COSIGNATURE_ED25519) throw new NoteFormatError('a cosigner key has type 4');
  const time = BigInt(Math.floor(timeSeconds));
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(time);
  const signature = sign(null, cosignedMessage(text, time), witness.privateKey);
  return `${EM_DASH} ${witness.name} ${Buffer.concat([witness.keyId, stamp, signature]).toString('base64')}`;
}

/**
 * The time of a valid cosignature of `witness` on the note's text, seconds; `null` when the note
 * carries none.
 */
export function verifyCosignature(note: ParsedNote, witness: NoteVerifier): number | null {
  if (witness.type !== COSIGNATURE_ED25519) return null;
  for (const s of note.signatures) {
    if (!isSignatureOf(s, witness) || s.signature.length !== 72) continue;
    const time = s.signature.readBigUInt64BE(0);
    if (time >= 2n ** 63n) continue;
    if (verify(null, cosignedMessage(note.text, time), publicKeyObject(witness), s.signature.subarray(8))) return Number(time);
  }
  return null;
}
