import { Logger } from '@nestjs/common';
import { errorMessage } from '#src/platform/logging/error-message.js';
import type { BackgroundWriter } from './background-writer.js';
import type { WriteJob } from './write-job.js';

/** How a {@link WriteBehind} gathers and writes. */
export interface WriteBehindOptions<V> {
  /** Names it in the log. */
  name: string;
  /** Longest time a value waits before it is written, milliseconds. */
  flushMs: number;
  /** Values written per transaction (the writer is free for other work between two). */
  sliceSize: number;
  /** The write of a slice. */
  job: WriteJob<V>;
  /** The key of a value: one value per key is held. */
  key(value: V): string;
  /** Which of two values of one key is held: the one held, or the one coming in (a retry's is held). */
  merge(held: V, incoming: V): V;
}

/**
 * Writes behind the requests that cause them, for what devices send on every poll (docs/decisions.md
 * §6, §10: last-seen times, rollout offers): values are gathered by key for at most
 * {@link WriteBehindOptions.flushMs}, then written together by the {@link BackgroundWriter}, a slice
 * of {@link WriteBehindOptions.sliceSize} per transaction, and the rest at shutdown. Whatever needs
 * them written (a read of the same rows, a later change) calls {@link flush} first.
 *
 * The one failure rule: the values of a slice that could not be written stay held (merged with any
 * that came in meanwhile) and are written by the next flush, which is scheduled at once; the flush
 * that failed rejects with the cause. Through a database outage they are retried every
 * {@link WriteBehindOptions.flushMs} until written (logged at the first failure and once written again). Values still held when the process dies without a shutdown
 * are lost: at most {@link WriteBehindOptions.flushMs} of them (the README says what that means
 * for each kind).
 */
export class WriteBehind<V> {
  private readonly logger: Logger;
  private readonly held = new Map<string, V>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Writes that failed in a row (a database outage): logged at the first, and when one succeeds again. */
  private failures = 0;

  constructor(
    private readonly writer: BackgroundWriter,
    private readonly options: WriteBehindOptions<V>,
  ) {
    this.logger = new Logger(options.name);
  }

  /** Holds `value` (merged with one held for its key); written within {@link WriteBehindOptions.flushMs}. */
  add(value: V): void {
    this.hold(value);
    this.schedule();
  }

  /** Values held and not yet written. */
  get backlog(): number {
    return this.held.size;
  }

  /** Resolves when the write under way, if any, has ended (starts none). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
  }

  /**
   * Writes every value held now (after a write already under way).
   * @throws the cause when a slice could not be written; its values and the later slices' stay held.
   */
  async flush(): Promise<void> {
    // Checked again after every wait, so two callers never write at once (and without a wait when
    // nothing is under way, so a flush started by the timer is under way at once).
    while (this.flushing) await this.flushing.catch(() => undefined);
    if (this.held.size === 0) return;
    const values = [...this.held.values()];
    this.held.clear();
    const slices: V[][] = [];
    for (let i = 0; i < values.length; i += this.options.sliceSize) slices.push(values.slice(i, i + this.options.sliceSize));
    this.flushing = this.write(slices);
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  /** Stops the timer and writes what is held: once no request can add more, before the database closes. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(slices: V[][]): Promise<void> {
    for (const [index, slice] of slices.entries()) {
      if (index > 0) await new Promise((resume) => setImmediate(resume));
      try {
        await this.writer.run(this.options.job, slice);
      } catch (error) {
        for (const value of slices.slice(index).flat()) this.hold(value, true);
        this.schedule();
        // Once per failure streak, not every flushMs through a database outage.
        if (this.failures++ === 0) {
          this.logger.error(
            `writing behind failed, ${this.held.size} value(s) held, retrying every ${this.options.flushMs} ms: ${errorMessage(error)}`,
          );
        }
        throw error;
      }
    }
    if (this.failures > 0) {
      this.logger.log(`writing behind works again, after ${this.failures} failed attempt(s)`);
      this.failures = 0;
    }
  }

  /** Holds a value; one coming back from a failed write is merged as the held one. */
  private hold(value: V, retry = false): void {
    const key = this.options.key(value);
    const current = this.held.get(key);
    if (current === undefined) this.held.set(key, value);
    else this.held.set(key, retry ? this.options.merge(value, current) : this.options.merge(current, value));
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      // A failure is logged by write(), once per streak; its values stay held and are retried.
      this.flush().catch(() => undefined);
    }, this.options.flushMs).unref();
  }
}
