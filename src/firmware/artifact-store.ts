import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppConfig } from '#src/config/app-config.js';
import { APP_CONFIG } from '#src/config/config.module.js';
import { computeDigests, type FirmwareDigests } from './firmware-digest.js';

/**
 * Firmware bytes under `DATA_DIR/artifacts/<cid>`, content-addressed: the same bytes are
 * stored once whoever publishes them. Nothing half-written is ever visible under a CID.
 */
@Injectable()
export class ArtifactStore {
  private readonly dir: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.dir = join(config.dataDir, 'artifacts');
  }

  /**
   * Streams `source` to a temporary file, computes its digests, then moves it under its CID.
   * @param maxBytes larger sources are rejected with {@link ArtifactTooLarge} as soon as they
   *   cross it, and leave nothing behind.
   * @throws ArtifactEmpty for a source without a byte (nothing is stored).
   */
  async put(source: Readable, maxBytes = Number.POSITIVE_INFINITY): Promise<FirmwareDigests> {
    await mkdir(this.dir, { recursive: true });
    const temp = join(this.dir, `.incoming-${randomBytes(8).toString('hex')}`);
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
        createWriteStream(temp, { flags: 'wx' }),
      );
      if (size === 0) throw new ArtifactEmpty();
      const digests = await computeDigests(createReadStream(temp));
      await rename(temp, this.pathOf(digests.cid));
      return digests;
    } finally {
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
