import { Inject, Injectable } from '@nestjs/common';
import { canonicalize } from '@tufjs/canonical-json';
import { Key, Signature } from '@tufjs/models';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileOnce } from '#src/platform/common/create-once.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';

/** The TUF roles whose keys this server holds. */
export type TufRole = 'root' | 'targets' | 'snapshot' | 'timestamp';

/** An Ed25519 TUF key: its public form (a `@tufjs/models` Key) and a signer for metadata. */
export interface TufKey {
  key: Key;
  /** Signs canonical metadata bytes (`Metadata.sign` hands them over). */
  signer: (data: Buffer) => Signature;
}

/**
 * The TUF signing keys, Ed25519, kept as PKCS#8 PEM files under `DATA_DIR/tuf/` (mode 600), made
 * on first use: `targets.pem`, `snapshot.pem`, `timestamp.pem`, and `root-<n>.pem` per root key
 * generation (the highest is current; older ones stay to sign the root that hands over to the
 * next, as TUF's root rotation requires). Instances sharing the data directory share them.
 */
@Injectable()
export class TufKeys {
  private readonly dir: string;
  private readonly cache = new Map<string, TufKey>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.dir = join(config.dataDir, 'tuf');
  }

  /** The key of a role; for `root`, the current root key. */
  role(role: TufRole): TufKey {
    return this.load(role === 'root' ? `root-${this.rootGeneration() || this.newRootGeneration()}` : role);
  }

  /** Every root key ever used here, by key id: to sign a root handing over from an older key. */
  rootKeys(): Map<string, TufKey> {
    const keys = new Map<string, TufKey>();
    for (let n = 1; n <= this.rootGeneration(); n++) {
      const key = this.load(`root-${n}`);
      keys.set(key.key.keyID, key);
    }
    return keys;
  }

  /** Makes a new root key the current one (`firmledger tuf rotate-root`); each repository's next root is signed by the old and the new key. */
  rotateRoot(): TufKey {
    return this.load(`root-${this.newRootGeneration()}`);
  }

  private rootGeneration(): number {
    if (!existsSync(this.dir)) return 0;
    const generations = readdirSync(this.dir)
      .map((name) => /^root-(\d+)\.pem$/.exec(name)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number);
    return generations.length ? Math.max(...generations) : 0;
  }

  private newRootGeneration(): number {
    const next = this.rootGeneration() + 1;
    this.create(`root-${next}`);
    return next;
  }

  private load(name: string): TufKey {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const file = join(this.dir, `${name}.pem`);
    if (!existsSync(file)) this.create(name);
    const privateKey = createPrivateKey(readFileSync(file, 'utf8'));
    const key = tufKey(privateKey);
    this.cache.set(name, key);
    return key;
  }

  /** Writes a new key file unless another process wrote it first (link, not overwrite). */
  private create(name: string): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = join(this.dir, `${name}.pem`);
    const { privateKey } = generateKeyPairSync('ed25519');
    createFileOnce(file, privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
  }
}

/** The TUF key (`ed25519` scheme, hex public key, key id = SHA-256 of its canonical JSON) of a private key. */
function tufKey(privateKey: KeyObject): TufKey {
  const raw = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url');
  const fields = { keytype: 'ed25519', scheme: 'ed25519', keyval: { public: raw.toString('hex') } };
  const keyID = createHashHex(canonicalize(fields));
  const key = new Key({ keyID, keyType: 'ed25519', scheme: 'ed25519', keyVal: { public: raw.toString('hex') } });
  return { key, signer: (data) => new Signature({ keyID, sig: sign(null, data, privateKey).toString('hex') }) };
}

function createHashHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
