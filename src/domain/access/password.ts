import { hash, verify } from '@node-rs/argon2';

/** Shortest password of an operator account, characters. */
export const PASSWORD_MIN_LENGTH = 12;
/** Longest password of an operator account, characters. */
export const PASSWORD_MAX_LENGTH = 256;

/** 400 text of a password outside the bounds. */
export const PASSWORD_LENGTH = `password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`;

/**
 * Argon2id with 19 MiB of memory, 2 passes and 1 lane: the OWASP Password Storage Cheat Sheet's
 * first recommendation (and `@node-rs/argon2`'s defaults, written out so a library upgrade cannot
 * weaken them). The hash is a PHC string carrying salt and parameters, so stronger settings later
 * still verify older hashes.
 */
const OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Why a password is refused, or `null` when it is acceptable. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  return length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH ? PASSWORD_LENGTH : null;
}

/** The Argon2id PHC string of a password (about 50 ms of CPU off the event loop). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Whether `password` matches `phc`; a malformed hash is a mismatch, never an error. */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

let decoy: Promise<string> | undefined;

/**
 * Spends the time a real check would on a sign-in whose username is unknown or disabled, so
 * response times do not tell which usernames exist.
 */
export async function verifyDecoy(password: string): Promise<false> {
  await verifyPassword(await (decoy ??= hashPassword('firmledger decoy password, never a real one')), password);
  return false;
}
