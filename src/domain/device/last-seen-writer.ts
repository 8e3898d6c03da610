import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { DeviceRepository } from './device.repository.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** Longest time a last-seen time waits before it is written, milliseconds. */
export const LAST_SEEN_FLUSH_MS = 1000;

/** Devices written per transaction; requests are served between two ({@link UnitOfWork.sliced}). */
const LAST_SEEN_SLICE = 5000;

/**
 * Writes devices' last-seen times behind (docs/decisions.md §6: next rollout updates it). Every
 * next-rollout request would otherwise be a write transaction of its own; here the times
 * gathered within {@link LAST_SEEN_FLUSH_MS} are written together, {@link LAST_SEEN_SLICE} per
 * transaction, and the rest at shutdown (after the listeners closed, before the database does). A time never moves
 * a device's last-seen time backwards. A failed write is logged and retried with the next batch.
 * Times still pending when the process dies without a shutdown are lost (at most one second).
 */
@Injectable()
export class LastSeenWriter implements OnApplicationShutdown {
  private readonly logger = new Logger('LastSeen');
  /** Device id → newest time seen (epoch ms) not yet written. */
  private readonly pending = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly devices: DeviceRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /** Records that a device was seen at `at` (epoch ms); written within {@link LAST_SEEN_FLUSH_MS}. */
  seen(deviceId: number, at: number): void {
    const known = this.pending.get(deviceId);
    if (known === undefined || at > known) this.pending.set(deviceId, at);
    this.schedule();
  }

  /** Times recorded and not yet written. */
  get backlog(): number {
    return this.pending.size;
  }

  /** Resolves when the write under way, if any, has finished (starts none). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
  }

  /** Writes every pending time now (after a write already under way). */
  async flush(): Promise<void> {
    // Checked again after every wait, so two callers never write at once.
    while (this.flushing) await this.flushing.catch(() => undefined);
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    const slices: (typeof batch)[] = [];
    for (let i = 0; i < batch.length; i += LAST_SEEN_SLICE) slices.push(batch.slice(i, i + LAST_SEEN_SLICE));
    // Once a slice is written its times leave `pending`, unless newer ones arrived meanwhile.
    const written = (slice: typeof batch): void => {
      for (const [id, at] of slice) if (this.pending.get(id) === at) this.pending.delete(id);
    };
    this.flushing = this.unitOfWork.sliced(slices, (manager, slice) => this.devices.touchMany(manager, slice), written);
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((error: unknown) => {
        this.logger.error(`writing last-seen times failed, retrying: ${errorMessage(error)}`);
        this.schedule();
      });
    }, LAST_SEEN_FLUSH_MS).unref();
  }

  /** Writes what is pending once no request can add more; the data source closes after this. */
  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
