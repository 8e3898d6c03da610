import { randomBytes } from 'node:crypto';
import { linkSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * Creates `file` with `content` unless it exists, never overwriting it: the content goes to a
 * temporary file beside it that is then hard-linked into place. When another process (an instance
 * sharing the data directory) creates the file at the same moment, its file stays and this content
 * is dropped; read the file afterwards to use the one that won. For secrets kept on disk (the
 * ledger's signing key, the TUF keys).
 * @param mode the file's permission bits; default `0o600` (owner only).
 * @throws the file system's error, other than the file existing.
 */
export function createFileOnce(file: string, content: string, mode = 0o600): void {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, content, { mode });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
}
