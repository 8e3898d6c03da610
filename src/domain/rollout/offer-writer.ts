import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '#src/platform/common/clock.js';
import { BackgroundWriter } from '#src/platform/database/background-writer.js';
import { WriteBehind } from '#src/platform/database/write-behind.js';
import { writeOffers, type Offer } from './offer.job.js';

/** Longest time an offer waits before it is written, milliseconds. */
export const OFFER_FLUSH_MS = 500;

/** Offers written per transaction (bench/RESULTS.md). */
const OFFER_SLICE = 200;

/**
 * Writes behind that a next-rollout answer named a rollout to a device (`pending` → `offered`,
 * docs/decisions.md §10), through the one write-behind mechanism ({@link WriteBehind}): next rollout
 * is the hot path of devices. Whatever reads or changes device states afterwards (a download, a
 * report, the sweep, an operator's view) calls {@link flush} first, so an offer never lands after
 * what follows it and operators see it. Of two offers to a device the first is kept. Offers still
 * held when the process dies without a shutdown are lost: such a device stays `pending` until its
 * download or report moves it on.
 */
@Injectable()
export class OfferWriter implements OnApplicationShutdown {
  private readonly behind: WriteBehind<Offer>;

  constructor(
    writer: BackgroundWriter,
    private readonly clock: Clock,
  ) {
    this.behind = new WriteBehind(writer, {
      name: 'RolloutOffers',
      flushMs: OFFER_FLUSH_MS,
      sliceSize: OFFER_SLICE,
      job: writeOffers,
      key: (offer) => `${offer.rolloutId}:${offer.deviceId}`,
      merge: (held) => held,
    });
  }

  /** Records an offer to a device `pending` in the rollout or without a state there; written within {@link OFFER_FLUSH_MS}. */
  offered(rolloutId: number, deviceId: number, lastWave: number): void {
    this.behind.add({ rolloutId, deviceId, lastWave, at: this.clock.now() });
  }

  /** Offers recorded and not yet written. */
  get backlog(): number {
    return this.behind.backlog;
  }

  /** Writes every offer held back now (after a write already under way); a failed write keeps them for the next. */
  flush(): Promise<void> {
    return this.behind.flush();
  }

  /** Writes what is held once no request can add more; the data source closes after this. */
  onApplicationShutdown(): Promise<void> {
    return this.behind.close();
  }
}
