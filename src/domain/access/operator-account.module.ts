import { Module } from '@nestjs/common';
import { FailedAuthenticationModule } from './failed-authentication.module.js';
import { OperatorAccountRepository } from './operator-account.repository.js';
import { OperatorSessionService } from './operator-session.service.js';
import { OperatorUserService } from './operator-user.service.js';
import { OperatorSession, OperatorUser } from './operator-user.entity.js';

/**
 * Operator accounts (managed with the CLI) and their console sessions. Sign-in counters live where
 * the device login's do (the database, or Redis with `REDIS_URL`); so do the operator API guard's
 * counts of failed authentication.
 */
@Module({
  imports: [FailedAuthenticationModule],
  providers: [OperatorAccountRepository, OperatorUserService, OperatorSessionService],
  exports: [OperatorUserService, OperatorSessionService, FailedAuthenticationModule],
})
export class OperatorAccountModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [OperatorSession, OperatorUser];
}
