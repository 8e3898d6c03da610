import { HttpException, Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { errorMessage } from '#src/platform/logging/error-message.js';
import { parseNote } from '#src/platform/crypto/signed-note.js';
import { CheckpointService, type SignedCheckpoint } from './checkpoint.service.js';
import { LedgerModule } from './ledger.module.js';
import { LedgerTreeService } from './ledger-tree.service.js';

/** How often the tree size is looked at, milliseconds (one small query). */
export const WITNESS_POLL_MS = 1000;
/** Longest wait before asking a witness again after it failed, milliseconds. */
const MAX_BACKOFF_MS = 60_000;
/** Longest wait for a witness's answer, milliseconds. */
const TIMEOUT_MS = 10_000;

/** What the log knows of one witness. */
interface WitnessPeer {
  /** `<url>/add-checkpoint`. */
  url: string;
  /** The tree size the witness last cosigned, as it told us (200, or 409); unknown at first. */
  size: number | undefined;
  failures: number;
  /** Epoch ms before which it is not asked again. */
  retryAt: number;
}

/**
 * The log side of C2SP tlog-witness: every second it looks at the tree size, and when the tree
 * grew it signs the checkpoint of the current tree and sends it to each witness of
 * `LEDGER_WITNESS_URLS` (`POST <url>/add-checkpoint`: `old <size the witness knows>`, the
 * consistency proof from it, the checkpoint). A 409 tells the witness's size (`text/x.tlog.size`):
 * the request is sent again from there. The cosignature lines of a 200 are kept when they verify
 * with a key of `LEDGER_WITNESS_KEYS` (`CheckpointService.addCosignatures`), so with
 * `LEDGER_WITNESS_QUORUM` N the checkpoint is published once N witnesses cosigned it. A witness
 * that fails (422 for a log that forked, unreachable…) is logged and asked again later, waiting up
 * to a minute. Runs only in the server (not in CLI commands); every instance submits, and the
 * witnesses' compare-and-swap keeps them consistent.
 */
@Injectable()
export class WitnessSubmitter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WitnessSubmitter');
  private readonly peers: WitnessPeer[];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly checkpoints: CheckpointService,
    private readonly tree: LedgerTreeService,
  ) {
    this.peers = config.ledgerWitnessUrls.map((url) => ({
      url: `${url.href.replace(/\/+$/, '')}/add-checkpoint`,
      size: undefined,
      failures: 0,
      retryAt: 0,
    }));
  }

  onApplicationBootstrap(): void {
    if (this.peers.length > 0) this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round()
        .catch((error: unknown) => this.logger.error(`witness submission failed: ${errorMessage(error)}`))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, WITNESS_POLL_MS).unref();
  }

  /** Sends the current tree's checkpoint to each witness that has not cosigned it and is not waiting. */
  async round(): Promise<void> {
    const size = await this.tree.size();
    const now = Date.now();
    const due = this.peers.filter((peer) => peer.size !== size && peer.retryAt <= now);
    if (size === 0 || due.length === 0) return;
    const checkpoint = await this.checkpoints.latest();
    await Promise.all(due.map((peer) => this.submit(peer, checkpoint)));
  }

  private async submit(peer: WitnessPeer, checkpoint: SignedCheckpoint): Promise<void> {
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const old = peer.size ?? 0;
        if (old > checkpoint.treeSize) {
          throw new Error(`it cosigned tree size ${old}, larger than this log's ${checkpoint.treeSize}: the log lost entries`);
        }
        const proof = old > 0 && old < checkpoint.treeSize ? await this.tree.consistency(old, checkpoint.treeSize) : [];
        const body = `old ${old}\n${proof.map((hash) => `${hash.toString('base64')}\n`).join('')}\n${checkpoint.note}`;
        const answer = await fetch(peer.url, { method: 'POST', body, signal: AbortSignal.timeout(TIMEOUT_MS) });
        const text = await answer.text();
        if (answer.status === 409 && /^text\/x\.tlog\.size/.test(answer.headers.get('content-type') ?? '') && /^\d{1,16}\n?$/.test(text)) {
          peer.size = Number(text.trim());
          continue;
        }
        if (answer.status !== 200) throw new Error(`${answer.status} ${firstLine(text)}`);
        await this.keep(peer, checkpoint, text);
        return;
      }
      throw new Error('it answered 409 twice');
    } catch (error) {
      peer.failures++;
      peer.retryAt = Date.now() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(peer.failures, 6));
      this.logger.warn(`witness ${peer.url} did not cosign tree size ${checkpoint.treeSize}: ${errorMessage(error)}`);
    }
  }

  /** Keeps the cosignature lines a witness answered (those of accepted witness keys). */
  private async keep(peer: WitnessPeer, checkpoint: SignedCheckpoint, lines: string): Promise<void> {
    const text = parseNote(checkpoint.note).text;
    try {
      await this.checkpoints.addCosignatures(`${text}\n${lines.endsWith('\n') ? lines : `${lines}\n`}`);
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      throw new Error(`its answer carries no cosignature this log accepts: ${error.message}`);
    }
    peer.size = checkpoint.treeSize;
    peer.failures = 0;
    peer.retryAt = 0;
  }
}

/** The first line of a witness's answer, at most 200 characters, for the log. */
function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Submits the log's checkpoints to the C2SP tlog-witness witnesses of `LEDGER_WITNESS_URLS`; imported by the server only. */
@Module({
  imports: [LedgerModule],
  providers: [WitnessSubmitter],
})
export class WitnessSubmissionModule {}
