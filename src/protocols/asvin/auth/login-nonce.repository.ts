import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { ReplayStore, type LoginClaim } from './replay-store.js';

const PRUNE_EVERY = 1000;

const INSERT = 'INSERT INTO login_nonce (device_key_id, timestamp, created_at) VALUES ($1, $2, $3)';
const PRUNE = 'DELETE FROM login_nonce WHERE timestamp < $1';

/**
 * The replay store in the database (the default): each accepted `(device key, timestamp)` of a
 * single-device key is recorded once, under a primary key, so a second claim fails even across
 * instances sharing the database (a unique violation on either engine). The inserts of a burst
 * are group-committed on SQLite ({@link UnitOfWork.writeStatement}).
 */
@Injectable()
export class LoginNonceRepository extends ReplayStore {
  private sincePrune = 0;

  constructor(private readonly unitOfWork: UnitOfWork) {
    super();
  }

  /**
   * Records a login's `(device key, timestamp)`; rows with timestamps before
   * `pruneBeforeSeconds` are deleted now and then.
   * @returns `false` when it was recorded before (a replay).
   */
  override async claim({ deviceKeyId, timestamp }: LoginClaim, nowMs: number, pruneBeforeSeconds: number): Promise<boolean> {
    try {
      await this.unitOfWork.writeStatement(INSERT, [deviceKeyId, timestamp, nowMs]);
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
    if (++this.sincePrune >= PRUNE_EVERY) {
      this.sincePrune = 0;
      await this.unitOfWork.writeStatement(PRUNE, [pruneBeforeSeconds]);
    }
    return true;
  }
}
