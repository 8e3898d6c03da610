import { Module } from '@nestjs/common';
import { OperatorAccountModule } from '#src/operator-account/operator-account.module.js';
import { OperatorTokenGuard } from './operator-token.guard.js';
import { OperatorTokenRepository } from './operator-token.repository.js';
import { OperatorTokenService } from './operator-token.service.js';

/**
 * Operator tokens: issued by the CLI, checked by the operator API's guard (which also admits
 * console sessions, and counts failed attempts where logins are counted).
 */
@Module({
  imports: [OperatorAccountModule],
  providers: [OperatorTokenRepository, OperatorTokenService, OperatorTokenGuard],
  // The guard is built in each controller's module: what it needs is exported with it.
  exports: [OperatorTokenService, OperatorTokenGuard, OperatorAccountModule],
})
export class OperatorTokenModule {}
