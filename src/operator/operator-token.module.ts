import { Module } from '@nestjs/common';
import { OperatorTokenGuard } from './operator-token.guard.js';
import { OperatorTokenRepository } from './operator-token.repository.js';
import { OperatorTokenService } from './operator-token.service.js';

/** Operator tokens: issued by the CLI, checked by the operator API's guard. */
@Module({
  providers: [OperatorTokenRepository, OperatorTokenService, OperatorTokenGuard],
  exports: [OperatorTokenService, OperatorTokenGuard],
})
export class OperatorTokenModule {}
