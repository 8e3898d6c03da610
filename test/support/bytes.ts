import { createHash } from 'node:crypto';

/** Lowercase hex MD5 of `bytes` (what `x-MD5` and the ledger's `md` carry). */
export const md5 = (bytes: Buffer): string => createHash('md5').update(bytes).digest('hex');

/** `size` deterministic, non-repeating-looking bytes: the same `seed` gives the same bytes. */
export function binary(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}
