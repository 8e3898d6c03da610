import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { BackgroundWriter } from '#src/platform/database/background-writer.js';
import { WriteBehind } from '#src/platform/database/write-behind.js';
import { touchDevices, type SeenAt } from './last-seen.job.js';

/** Longest time a last-seen time waits before it is written, milliseconds. */
export const LAST_SEEN_FLUSH_MS = 1000;

/** Devices written per transaction (bench/RESULTS.md). */
const LAST_SEEN_SLICE = 5000;

/**
 * Writes devices' last-seen times behind (docs/decisions.md §6: next rollout updates it), through the
 * one write-behind mechanism ({@link WriteBehind}): every poll would otherwise be a write of its
 * own. A time never moves a device's last-seen time backwards; of two times of a device the newer is
 * kept. Times still held when the process dies without a shutdown are lost (at most a second).
 */
@Injectable()
export class LastSeenWriter implements OnApplicationShutdown {
  private readonly behind: WriteBehind<SeenAt>;

  constructor(writer: BackgroundWriter) {
    this.behind = new WriteBehind(writer, {
      name: 'LastSeen',
      flushMs: LAST_SEEN_FLUSH_MS,
      sliceSize: LAST_SEEN_SLICE,
      job: touchDevices,
      key: (seen) => String(seen.id),
      merge: (held, incoming) => (incoming.at > held.at ? incoming : held),
    });
  }

  /** Records that a device was seen at `at` (epoch ms); written within {@link LAST_SEEN_FLUSH_MS}. */
  seen(deviceId: number, at: number): void {
    this.behind.add({ id: deviceId, at });
  }

  /** Times recorded and not yet written. */
  get backlog(): number {
    return this.behind.backlog;
  }

  /** Resolves when the write under way, if any, has finished (starts none). */
  idle(): Promise<void> {
    return this.behind.idle();
  }

  /** Writes every pending time now (after a write already under way). */
  flush(): Promise<void> {
    return this.behind.flush();
  }

  /** Writes what is pending once no request can add more; the data source closes after this. */
  onApplicationShutdown(): Promise<void> {
    return this.behind.close();
  }
}
