import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { DeviceStateRepository } from './device-state.repository.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** Longest time an offer waits before it is written, milliseconds. */
export const OFFER_FLUSH_MS = 500;

/** Offers written per transaction; the event loop serves requests between two (bench/RESULTS.md). */
const OFFER_SLICE = 200;

/** An offer not yet written. */
interface PendingOffer {
  rolloutId: number;
  deviceId: number;
  /** Wave the device joins when it has no state (the last). */
  lastWave: number;
  /** Epoch ms. */
  at: number;
}

/**
 * Writes behind that a next-rollout answer named a rollout to a device (`pending` → `offered`,
 * docs/decisions.md §10). Next rollout is the hot path of devices: instead of a write
 * transaction per answer, the offers gathered within {@link OFFER_FLUSH_MS} are written together,
 * {@link OFFER_SLICE} per transaction, and the rest at shutdown (like the last-seen times). Whatever reads or
 * changes device states afterwards (a download, a report, the sweep, an operator's view) calls
 * {@link flush} first, so an offer never lands after what follows it and operators see it.
 * Offers still held when the process dies without a shutdown are lost: such a device stays
 * `pending` until its download or report moves it on.
 */
@Injectable()
export class OfferWriter implements OnApplicationShutdown {
  private readonly logger = new Logger('RolloutOffers');
  private readonly offers = new Map<string, PendingOffer>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly states: DeviceStateRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /** Records an offer to a device `pending` in the rollout or without a state there; written within {@link OFFER_FLUSH_MS}. */
  offered(rolloutId: number, deviceId: number, lastWave: number): void {
    const key = `${rolloutId}:${deviceId}`;
    if (!this.offers.has(key)) this.offers.set(key, { rolloutId, deviceId, lastWave, at: this.clock.now() });
    this.schedule();
  }

  /** Offers recorded and not yet written. */
  get backlog(): number {
    return this.offers.size;
  }

  /** Writes every offer held back now (after a write already under way); a failed write keeps them for the next. */
  async flush(): Promise<void> {
    // Checked again after every wait, so two callers never write at once.
    while (this.flushing) await this.flushing.catch(() => undefined);
    if (this.offers.size === 0) return;
    const batch = [...this.offers.values()];
    this.offers.clear();
    const byRollout = new Map<number, PendingOffer[]>();
    for (const offer of batch) {
      const offers = byRollout.get(offer.rolloutId);
      if (offers) offers.push(offer);
      else byRollout.set(offer.rolloutId, [offer]);
    }
    const slices: PendingOffer[][] = [];
    for (const offers of byRollout.values()) {
      for (let i = 0; i < offers.length; i += OFFER_SLICE) slices.push(offers.slice(i, i + OFFER_SLICE));
    }
    const written = new Set<PendingOffer[]>();
    this.flushing = this.unitOfWork.sliced(
      slices,
      (manager, slice) => this.write(manager, slice),
      (slice) => written.add(slice),
    );
    try {
      await this.flushing;
    } catch (error) {
      for (const offer of slices.filter((slice) => !written.has(slice)).flat()) {
        const key = `${offer.rolloutId}:${offer.deviceId}`;
        if (!this.offers.has(key)) this.offers.set(key, offer);
      }
      this.schedule();
      throw error;
    } finally {
      this.flushing = undefined;
    }
  }

  /** Writes offers of one rollout, at the latest offer's time (the offers are at most {@link OFFER_FLUSH_MS} apart). */
  private async write(manager: EntityManager, offers: PendingOffer[]): Promise<void> {
    const at = offers.reduce((latest, offer) => Math.max(latest, offer.at), 0);
    const ids = offers.map((offer) => offer.deviceId);
    await this.states.offerMany(manager, offers[0].rolloutId, ids, offers[0].lastWave, at);
  }

  /** A write within {@link OFFER_FLUSH_MS}, unless one is due already; a failed write keeps its offers for the next. */
  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((error: unknown) => this.logger.error(`writing rollout offers failed, retrying: ${errorMessage(error)}`));
    }, OFFER_FLUSH_MS).unref();
  }

  /** Writes what is held once no request can add more; the data source closes after this. */
  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush().catch((error: unknown) => this.logger.error(`writing rollout offers failed: ${errorMessage(error)}`));
  }
}
