import { createHash, verify, type KeyObject } from 'node:crypto';
import { Transform } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { keyFingerprint } from '#src/platform/crypto/public-key.js';

/**
 * Reading Mender artifacts (format version 3, as `mender-artifact write` makes them) while they
 * are published (docs/decisions.md §13). An artifact is an uncompressed tar of, in this order:
 * `version` (`{"format":"mender","version":3}`), `manifest` (`<sha256>  <name>` lines for
 * `version`, `header.tar.gz` and every payload file), `manifest.sig` when signed, `header.tar.gz`
 * (`header-info`: payload types, `artifact_provides.artifact_name`, `artifact_depends.device_type`;
 * `headers/NNNN/type-info`: each payload's provides) and the payloads, `data/NNNN.tar.gz`.
 *
 * The header is what firmledger reads and serves, so it is checked: the `version` and header
 * bytes must match their manifest lines, and a signature must verify when the tenant configured a
 * verification key. Payload files are checked by the client itself as it installs them, against
 * the same manifest (a mismatch ends the deployment `failure`, with the client's log).
 */

/** What a Mender artifact's header says, as kept with its firmware (JSON in `firmware.mender_artifact`). */
export interface MenderArtifactInfo {
  /** `artifact_provides.artifact_name`: the artifact's name, published as the firmware version. */
  artifactName: string;
  /** `artifact_provides.artifact_group`, `null` when absent. */
  artifactGroup: string | null;
  /** `artifact_depends.device_type`: the device types it installs on (at least one). */
  deviceTypesCompatible: string[];
  /** Every `artifact_provides` of its payloads (`rootfs-image.single-file.version` …), by name. */
  provides: Record<string, string>;
  /** Every `clears_artifact_provides` pattern of its payloads. */
  clearsProvides: string[];
  /** The payload (update module) types, in order (`single-file`, `rootfs-image` …). */
  payloadTypes: string[];
  /** Whether it carries a signature (`manifest.sig`). */
  signed: boolean;
  /**
   * SHA-256 fingerprint (lowercase hex of the key's DER SubjectPublicKeyInfo) of the tenant's
   * verification key the signature was checked with; `null` when it was not checked (no key set).
   */
  verifiedWith: string | null;
}

/** An artifact that cannot be published: the message says what is wrong with it. */
export class MalformedMenderArtifact extends Error {
  override readonly name = 'MalformedMenderArtifact';
}

/** Largest `version`, `manifest`, `manifest.sig` member, bytes. */
const SMALL_MEMBER_BYTES = 64 * 1024;

/** Largest header (`header.tar.gz`), compressed and uncompressed, bytes. */
const HEADER_BYTES = 1024 * 1024;

/** Longest artifact name and device type: the firmware columns' length. */
const NAME_LENGTH = 64;

/** Members an artifact may hold besides the payloads, in their order. */
const HEAD_MEMBERS = ['version', 'manifest', 'manifest.sig', 'manifest-augment', 'header.tar.gz', 'header.tar', 'header-augment.tar.gz'];

/** A header compressed in a way this reader does not read (`mender-artifact --compression lzma|zstd`). */
const OTHER_HEADER = /^header(-augment)?\.tar\.(xz|zst)$/;

/** A payload member: `data/0000.tar.gz` (or another compression). */
const DATA_MEMBER = /^data\/\d{4}\.tar(\.gz|\.xz|\.zst)?$/;

/**
 * A pass-through stream that reads the Mender artifact flowing through it: its bytes go on
 * unchanged; at their end it checks the artifact and fails the stream with a
 * {@link MalformedMenderArtifact} when it is not a publishable one, so that a pipeline storing the
 * bytes keeps nothing. `info` resolves with what the header says once the stream ended well.
 * @param verifyKey the tenant's artifact verification key: then a signature is required and must
 *   verify with it; `null`: a signature is noted, not checked.
 */
export function menderArtifactReader(verifyKey: KeyObject | null): { stream: Transform; info: Promise<MenderArtifactInfo> } {
  const members = new Map<string, { bytes: Buffer; sha256: string }>();
  const order: string[] = [];
  let failure: Error | null = null;
  let first = true;
  const fail = (message: string) => {
    failure ??= new MalformedMenderArtifact(message);
  };
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      const name = entry.path;
      order.push(name);
      if (entry.type !== 'File' && entry.type !== 'OldFile') {
        fail(`"${name}" is not a file`);
        entry.resume();
        return;
      }
      if (DATA_MEMBER.test(name)) {
        entry.resume(); // payloads are streamed to storage, not read here
        return;
      }
      if (OTHER_HEADER.test(name)) {
        fail(`its header is ${name}: publish artifacts written with --compression gzip (the default) or none`);
        entry.resume();
        return;
      }
      if (!HEAD_MEMBERS.includes(name)) {
        fail(`unexpected member "${name}" (a Mender artifact holds version, manifest, header.tar.gz and data/NNNN.tar.gz)`);
        entry.resume();
        return;
      }
      const limit = name.startsWith('header') ? HEADER_BYTES : SMALL_MEMBER_BYTES;
      const chunks: Buffer[] = [];
      let size = 0;
      entry.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= limit) chunks.push(chunk);
      });
      entry.on('end', () => {
        if (size > limit) return fail(`"${name}" is larger than ${limit} bytes`);
        const bytes = Buffer.concat(chunks);
        members.set(name, { bytes, sha256: createHash('sha256').update(bytes).digest('hex') });
      });
    },
  });
  const parsed = new Promise<void>((resolve) => {
    parser.on('end', () => resolve());
    parser.on('error', (error: Error) => {
      fail(`not a tar archive: ${error.message}`);
      resolve();
    });
  });
  let resolveInfo: (info: MenderArtifactInfo) => void = () => undefined;
  let rejectInfo: (error: Error) => void = () => undefined;
  const info = new Promise<MenderArtifactInfo>((resolve, reject) => {
    resolveInfo = resolve;
    rejectInfo = reject;
  });
  // Whoever reads only `stream` still sees the failure there; `info` must not be an unhandled rejection.
  info.catch(() => undefined);
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (first) {
        first = false;
        if (chunk[0] === 0x1f && chunk[1] === 0x8b) fail('it is gzip-compressed: a Mender artifact is a plain tar archive');
      }
      if (failure !== null) return done(null, chunk);
      if (parser.write(chunk)) return done(null, chunk);
      let called = false;
      const go = () => {
        if (called) return;
        called = true;
        done(null, chunk);
      };
      parser.once('drain', go);
      void parsed.then(go);
    },
    flush(done) {
      parser.end();
      const finish = () => {
        try {
          if (failure !== null) throw failure;
          const result = describe(members, order, verifyKey);
          resolveInfo(result);
          done();
        } catch (error) {
          const refused = error instanceof MalformedMenderArtifact ? error : new MalformedMenderArtifact(String(error));
          rejectInfo(refused);
          done(refused);
        }
      };
      if (failure !== null) finish();
      else void parsed.then(finish);
    },
  });
  stream.on('error', (error) => rejectInfo(error));
  return { stream, info };
}

/** Checks the members read and says what the header holds. @throws MalformedMenderArtifact */
function describe(members: ReadonlyMap<string, { bytes: Buffer; sha256: string }>, order: readonly string[], verifyKey: KeyObject | null) {
  if (order.length === 0) throw new MalformedMenderArtifact('it is empty or not a tar archive');
  if (order[0] !== 'version') throw new MalformedMenderArtifact(`its first member is "${order[0]}", not "version"`);
  const version = members.get('version')!;
  const format = parseJson(version.bytes, 'version') as { format?: unknown; version?: unknown };
  if (format.format !== 'mender') throw new MalformedMenderArtifact('"version" does not say format "mender"');
  if (format.version !== 3) {
    throw new MalformedMenderArtifact(
      `artifact format version ${JSON.stringify(format.version)} is not supported: write it with mender-artifact's format 3 (the default)`,
    );
  }
  const headerName = order.find((name) => name === 'header.tar.gz' || name === 'header.tar');
  if (headerName === undefined) throw new MalformedMenderArtifact('it has no header.tar.gz');
  const manifest = members.get('manifest');
  if (manifest === undefined) throw new MalformedMenderArtifact('it has no manifest');
  const sums = parseManifest(manifest.bytes);
  for (const name of ['version', headerName]) {
    const expected = sums.get(name);
    if (expected === undefined) throw new MalformedMenderArtifact(`its manifest has no checksum of "${name}"`);
    if (members.get(name)!.sha256 !== expected) {
      throw new MalformedMenderArtifact(`"${name}" does not match its checksum in the manifest (the artifact is damaged)`);
    }
  }
  const signature = members.get('manifest.sig');
  let verifiedWith: string | null = null;
  if (verifyKey !== null) {
    if (signature === undefined) throw new MalformedMenderArtifact('it is not signed, and the tenant requires signed artifacts');
    if (!verifiesManifest(manifest.bytes, signature.bytes, verifyKey)) {
      throw new MalformedMenderArtifact('its signature does not verify with the tenant’s artifact verification key');
    }
    verifiedWith = keyFingerprint(verifyKey);
  }
  return { ...readHeader(members.get(headerName)!.bytes), signed: signature !== undefined, verifiedWith };
}

/** The lines of a manifest: name → lowercase hex SHA-256. */
function parseManifest(bytes: Buffer): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    const match = /^([0-9a-f]{64}) {2}(\S.*)$/.exec(line);
    if (!match) throw new MalformedMenderArtifact('its manifest is not "<sha256>  <name>" lines');
    sums.set(match[2], match[1]);
  }
  return sums;
}

/**
 * Whether `manifest.sig` (base64) signs the manifest with `key`, as mender-artifact signs: RSA
 * PKCS #1 v1.5 or ECDSA (the raw `r‖s` of the curve's size, or DER), over SHA-256 of the manifest.
 */
function verifiesManifest(manifest: Buffer, signatureText: Buffer, key: KeyObject): boolean {
  const signature = Buffer.from(signatureText.toString('ascii').trim(), 'base64');
  if (signature.length === 0) return false;
  try {
    if (key.asymmetricKeyType === 'rsa') return verify('sha256', manifest, key, signature);
    return (
      verify('sha256', manifest, { key, dsaEncoding: 'ieee-p1363' }, signature) ||
      verify('sha256', manifest, { key, dsaEncoding: 'der' }, signature)
    );
  } catch {
    return false;
  }
}

/** What `header.tar.gz` says. @throws MalformedMenderArtifact */
function readHeader(compressed: Buffer): Omit<MenderArtifactInfo, 'signed' | 'verifiedWith'> {
  let tar: Buffer;
  try {
    tar = compressed[0] === 0x1f && compressed[1] === 0x8b ? gunzipSync(compressed, { maxOutputLength: HEADER_BYTES }) : compressed;
  } catch {
    throw new MalformedMenderArtifact('its header.tar.gz is not gzip data of at most 1 MiB');
  }
  const files = readTarSync(tar);
  const headerInfo = files.get('header-info');
  if (headerInfo === undefined) throw new MalformedMenderArtifact('its header has no header-info');
  const info = parseJson(headerInfo, 'header-info') as {
    payloads?: unknown;
    artifact_provides?: { artifact_name?: unknown; artifact_group?: unknown };
    artifact_depends?: { device_type?: unknown };
  };
  const name = info.artifact_provides?.artifact_name;
  if (typeof name !== 'string' || !isPrintable(name, NAME_LENGTH)) {
    throw new MalformedMenderArtifact(`its artifact name must be 1 to ${NAME_LENGTH} printable characters (header-info artifact_provides)`);
  }
  const group = info.artifact_provides?.artifact_group;
  const types = info.artifact_depends?.device_type;
  if (!Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === 'string' && isPrintable(t, NAME_LENGTH))) {
    throw new MalformedMenderArtifact(
      `its compatible device types must be a list of 1 to ${NAME_LENGTH} printable characters each (header-info artifact_depends)`,
    );
  }
  const payloads = Array.isArray(info.payloads) ? info.payloads : [];
  const payloadTypes = payloads.map((p: unknown) =>
    typeof (p as { type?: unknown })?.type === 'string' ? (p as { type: string }).type : '',
  );
  const provides: Record<string, string> = {};
  const clearsProvides: string[] = [];
  payloadTypes.forEach((_type, index) => {
    const typeInfo = files.get(`headers/${String(index).padStart(4, '0')}/type-info`);
    if (typeInfo === undefined) return;
    const parsed = parseJson(typeInfo, 'type-info') as { artifact_provides?: unknown; clears_artifact_provides?: unknown };
    if (parsed.artifact_provides && typeof parsed.artifact_provides === 'object') {
      for (const [key, value] of Object.entries(parsed.artifact_provides)) if (typeof value === 'string') provides[key] = value;
    }
    if (Array.isArray(parsed.clears_artifact_provides)) {
      for (const pattern of parsed.clears_artifact_provides) if (typeof pattern === 'string') clearsProvides.push(pattern);
    }
  });
  return {
    artifactName: name,
    artifactGroup: typeof group === 'string' ? group : null,
    deviceTypesCompatible: types as string[],
    provides,
    clearsProvides,
    payloadTypes,
  };
}

/** The files of a small tar archive held in memory, by path. @throws MalformedMenderArtifact */
function readTarSync(tar: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let error: string | null = null;
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => files.set(entry.path, Buffer.concat(chunks)));
    },
  });
  parser.on('error', (e: Error) => (error ??= e.message));
  parser.end(tar);
  if (error !== null) throw new MalformedMenderArtifact(`its header is not a tar archive: ${String(error)}`);
  return files;
}

function parseJson(bytes: Buffer, member: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new MalformedMenderArtifact(`"${member}" is not a JSON object`);
}

function isPrintable(text: string, max: number): boolean {
  return text.length >= 1 && text.length <= max && !/\p{Cc}/u.test(text);
}
