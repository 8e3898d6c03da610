import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileOnce } from '#src/platform/common/create-once.js';
import { ED25519, generateSigner, NoteFormatError, parseSigner, parseVerifier } from '#src/platform/crypto/signed-note.js';
import { baseUrl, ConfigError, integer } from './config-values.js';
import { defaultOf } from './environment.js';

/** The ledger's keys and witnesses, as configured (part of the app's configuration). */
export interface LedgerKeySettings {
  /**
   * The ledger's checkpoint signing key, a signed-note signer key (`PRIVATE+KEY+<origin>+<id>+…`,
   * Ed25519): `LEDGER_SIGNING_KEY`, or the one kept in `DATA_DIR/ledger-signing-key` (filled in
   * by {@link prepareDataDir}; empty until then). A secret: never logged.
   */
  ledgerSigningKey: string;
  /**
   * The log's origin line: `LEDGER_ORIGIN`, else the given key's name, else (until
   * {@link prepareDataDir} sets the kept key's name) `undefined`. A key created without
   * `LEDGER_ORIGIN` is named `firmledger/<host:port of BC_URL>`.
   */
  ledgerOrigin: string | undefined;
  /** Verifier keys (`<name>+<id>+<key>`, type 4) of the witnesses whose cosignatures count (`LEDGER_WITNESS_KEYS`). */
  ledgerWitnessKeys: string[];
  /** Cosignatures of {@link ledgerWitnessKeys} a checkpoint needs before it is published (`LEDGER_WITNESS_QUORUM`, default 0). */
  ledgerWitnessQuorum: number;
  /**
   * C2SP tlog-witness submission prefixes (`LEDGER_WITNESS_URLS`): the server sends each new
   * checkpoint to `<url>/add-checkpoint` and keeps the cosignatures of {@link ledgerWitnessKeys} it gets back.
   */
  ledgerWitnessUrls: URL[];
}

/** The ledger's signing key, origin and witnesses, checked: a malformed key stops the start. */
export function ledgerKeys(get: (name: string) => string | undefined): LedgerKeySettings {
  const origin = get('LEDGER_ORIGIN');
  if (origin !== undefined && /[\s+]/u.test(origin)) throw new ConfigError('LEDGER_ORIGIN must not contain spaces or "+"');
  const secret = get('LEDGER_SIGNING_KEY');
  let signingKey = '';
  if (secret !== undefined) {
    try {
      const signer = parseSigner(secret);
      if (signer.type !== ED25519) throw new NoteFormatError('type must be 1 (Ed25519)');
      if (origin !== undefined && signer.name !== origin) throw new NoteFormatError(`its name is not LEDGER_ORIGIN ("${origin}")`);
      signingKey = signer.secret;
    } catch (error) {
      // the key is a secret: the message names what is wrong, never the value
      throw new ConfigError(`LEDGER_SIGNING_KEY must be an Ed25519 signed-note signer key: ${(error as Error).message}`);
    }
  }
  const witnessKeys = (get('LEDGER_WITNESS_KEYS') ?? '').split(/[\s,]+/).filter((key) => key !== '');
  for (const key of witnessKeys) {
    try {
      if (parseVerifier(key).type !== 0x04) throw new NoteFormatError('type must be 4 (Ed25519 cosignature)');
    } catch (error) {
      throw new ConfigError(`LEDGER_WITNESS_KEYS: "${key}" is not a witness verifier key: ${(error as Error).message}`);
    }
  }
  const witnessUrls = (get('LEDGER_WITNESS_URLS') ?? '')
    .split(/[\s,]+/)
    .filter((url) => url !== '')
    .map((text) => {
      const url = baseUrl('LEDGER_WITNESS_URLS', text);
      url.pathname = url.pathname.replace(/\/+$/, '');
      return url;
    });
  if (witnessUrls.length > 0 && witnessKeys.length === 0) {
    throw new ConfigError('LEDGER_WITNESS_URLS needs LEDGER_WITNESS_KEYS: only cosignatures of known witness keys are kept');
  }
  return {
    ledgerWitnessUrls: witnessUrls,
    ledgerSigningKey: signingKey,
    ledgerOrigin: origin ?? (signingKey ? parseSigner(signingKey).name : undefined),
    ledgerWitnessKeys: witnessKeys,
    ledgerWitnessQuorum: integer(
      'LEDGER_WITNESS_QUORUM',
      get('LEDGER_WITNESS_QUORUM') ?? defaultOf('LEDGER_WITNESS_QUORUM'),
      0,
      witnessKeys.length,
    ),
  };
}

/**
 * The ledger's signing key kept in `DATA_DIR/ledger-signing-key`, created on the first start
 * (named by `LEDGER_ORIGIN` or its default). Instances sharing a data directory share it; one
 * created by another process at the same moment is read, not overwritten.
 * @throws ConfigError when the kept key is not one, or `LEDGER_ORIGIN` names another origin.
 */
export function keptSigningKey(dataDir: string, ledgerOrigin: string | undefined, bcHost: string): string {
  const file = join(dataDir, 'ledger-signing-key');
  const origin = ledgerOrigin ?? `firmledger/${bcHost}`;
  if (!existsSync(file)) createFileOnce(file, `${generateSigner(origin, ED25519).secret}\n`);
  let signer;
  try {
    signer = parseSigner(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${file} is not a signed-note signer key: ${(error as Error).message}`);
  }
  if (ledgerOrigin !== undefined && signer.name !== ledgerOrigin) {
    throw new ConfigError(`LEDGER_ORIGIN "${ledgerOrigin}" is not the name of the key kept in ${file} ("${signer.name}")`);
  }
  return signer.secret;
}

/**
 * The random secret that signs device tokens when `JWT_SECRET` is unset, kept in
 * `DATA_DIR/jwt-secret` (created on the first start) so tokens survive restarts (docs/decisions.md §4).
 */
export function keptJwtSecret(dataDir: string): Buffer {
  const file = join(dataDir, 'jwt-secret');
  if (!existsSync(file)) createFileOnce(file, randomBytes(48).toString('base64url'));
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}
