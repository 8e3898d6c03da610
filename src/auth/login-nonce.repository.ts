import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '#src/common/unique-violation.js';
import { NativePrepared } from '#src/database/sql.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';
import { LoginNonce } from './login-record.entity.js';
import { ReplayStore, type LoginClaim } from './replay-store.js';

const PRUNE_EVERY = 1000;

/**
 * The replay store in the database (the default): each accepted `(device key, timestamp)` is
 * recorded once, under a primary key, so a second claim fails even across instances sharing
 * the database (a unique violation on either engine). On better-sqlite3 the insert is prepared
 * once and runs synchronously when no transaction is open (the login hot path).
 */
@Injectable()
export class LoginNonceRepository extends ReplayStore {
  private sincePrune = 0;
  private nativeInsert: NativePrepared | undefined;

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
      const native = this.unitOfWork.native;
      if (native !== undefined) {
        const insert = (this.nativeInsert ??= new NativePrepared(
          native,
          'INSERT INTO login_nonce (device_key_id, timestamp, created_at) VALUES ($1, $2, $3)',
        ));
        await this.unitOfWork.writeNative(() => insert.statement.run(...insert.args([deviceKeyId, timestamp, nowMs])));
      } else {
        await this.unitOfWork.write((manager) => manager.insert(LoginNonce, { deviceKeyId, timestamp, createdAt: nowMs }));
      }
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
    if (++this.sincePrune >= PRUNE_EVERY) {
      this.sincePrune = 0;
      await this.unitOfWork.write((manager) =>
        manager.createQueryBuilder().delete().from(LoginNonce).where('timestamp < :before', { before: pruneBeforeSeconds }).execute(),
      );
    }
    return true;
  }
}
