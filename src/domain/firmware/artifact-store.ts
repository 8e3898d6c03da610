import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { computeDigests, type FirmwareDigests } from './firmware-digest.js';

/** Prefix of an upload's temporary file: `.incoming-<host>-<pid>-<random>` while it is written. */
const INCOMING = '.incoming-';

/** A temporary file untouched this long belongs to no upload still running (any host), milliseconds. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/** This host's name as it may appear in a file name. */
const HOST = hostname().replace(/[^A-Za-z0-9.]/g, '_');

/**
 * Firmware bytes under `DATA_DIR/artifacts/<cid>`, content-addressed: the same bytes are
 * stored once whoever publishes them. Nothing half-written is ever visible under a CID, and what
 * an upload cut off by a crash (`kill -9`) left is removed at the next start.
 */
@Injectable()
export class ArtifactStore implements OnApplicationBootstrap {
  private readonly dir: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.dir = join(config.dataDir, 'artifacts');
  }

  /**
   * Removes the temporary files of uploads that can no longer finish: those of a process of this
   * host that is gone, and any not written to for an hour (another host's, on a shared data
   * directory, or older ones without a process in their name). Uploads of live processes (another
   * instance, a CLI `firmware publish`) are left alone.
   */
  async onApplicationBootstrap(): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((name) => name.startsWith(INCOMING));
    } catch {
      return; // no artifacts directory yet
    }
    let removed = 0;
    for (const name of names) {
      const path = join(this.dir, name);
      const [host, pid] = name.slice(INCOMING.length).split('-');
      const ours = host === HOST && /^\d+$/.test(pid ?? '');
      try {
        if (ours ? !processAlive(Number(pid)) : Date.now() - (await stat(path)).mtimeMs > ABANDONED_AFTER_MS) {
          await rm(path, { force: true });
          removed++;
        }
      } catch {
        // Gone meanwhile, or not ours to remove: nothing to do.
      }
    }
    if (removed > 0) new Logger('Artifacts').log(`removed ${removed} partial upload(s) left by a stopped process`);
  }

  /**
   * Streams `source` to a temporary file, computes its digests, then moves it under its CID.
   * @param maxBytes larger sources are rejected with {@link ArtifactTooLarge} as soon as they
   *   cross it, and leave nothing behind.
   * @throws ArtifactEmpty for a source without a byte (nothing is stored).
   */
  async put(source: Readable, maxBytes = Number.POSITIVE_INFINITY): Promise<FirmwareDigests> {
    await mkdir(this.dir, { recursive: true });
    const temp = join(this.dir, `${INCOMING}${HOST}-${process.pid}-${randomBytes(8).toString('hex')}`);
    const sink = createWriteStream(temp, { flags: 'wx' });
    // The file is opened asynchronously: a source that fails at once (a client gone before its body
    // was read) settles the pipeline before the open creates the file. Its removal waits for the close.
    const closed = new Promise<void>((resolve) => sink.once('close', () => resolve()));
    try {
      let size = 0;
      await pipeline(
        source,
        async function* limit(chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            size += chunk.length;
            if (size > maxBytes) throw new ArtifactTooLarge(maxBytes);
            yield chunk;
          }
        },
        sink,
      );
      if (size === 0) throw new ArtifactEmpty();
      const digests = await computeDigests(createReadStream(temp));
      await rename(temp, this.pathOf(digests.cid));
      return digests;
    } finally {
      sink.destroy();
      await closed;
      await rm(temp, { force: true });
    }
  }

  /** Size in bytes of a stored artifact, or `null` when absent. */
  async size(cid: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(cid))).size;
    } catch {
      return null;
    }
  }

  /** Reads bytes `start`..`end` (inclusive) of a stored artifact. */
  open(cid: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.pathOf(cid), range);
  }

  private pathOf(cid: string): string {
    if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(cid)) throw new Error('not a CID');
    return join(this.dir, cid);
  }
}

/** A binary over the size limit. */
export class ArtifactTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`firmware is larger than ${maxBytes} bytes`);
  }
}

/** A binary without a byte. */
export class ArtifactEmpty extends Error {
  constructor() {
    super('firmware binary is empty');
  }
}

/** Whether a process of this host runs under `pid` (signal 0 only checks). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}
