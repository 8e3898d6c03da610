import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '#src/common/unique-violation.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';
import { LoginNonce } from './login-record.entity.js';

const PRUNE_EVERY = 1000;

/**
 * The replay store (CONTRACT.md §4): each accepted `(device key, timestamp)` is recorded once,
 * under a primary key, so a second claim fails even across instances sharing the database.
 */
@Injectable()
export class LoginNonceRepository {
  private sincePrune = 0;

  constructor(private readonly unitOfWork: UnitOfWork) {}

  /**
   * Records a login's `(device key, timestamp)`.
   * @param timestamp Unix seconds from the login.
   * @param pruneBeforeSeconds records with older timestamps can no longer pass the skew check
   *   and are deleted now and then.
   * @returns `false` when it was recorded before (a replay).
   */
  async claim(deviceKeyId: number, timestamp: number, nowMs: number, pruneBeforeSeconds: number): Promise<boolean> {
    try {
      await this.unitOfWork.write((manager) => manager.insert(LoginNonce, { deviceKeyId, timestamp, createdAt: nowMs }));
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
