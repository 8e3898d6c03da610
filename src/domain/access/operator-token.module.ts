import { Module } from '@nestjs/common';
import { OperatorAccountModule } from './operator-account.module.js';
import { OperatorTokenRepository } from './operator-token.repository.js';
import { OperatorTokenService } from './operator-token.service.js';

/** Operator tokens: issued by the CLI, checked by the operator API's guard. */
@Module({
  imports: [OperatorAccountModule],
  providers: [OperatorTokenRepository, OperatorTokenService],
  exports: [OperatorTokenService, OperatorAccountModule],
})
export class OperatorTokenModule {}
