import { Module } from '@nestjs/common';
import { OperatorAccountModule } from './operator-account.module.js';
import { OperatorTokenRepository } from './operator-token.repository.js';
import { OperatorTokenService } from './operator-token.service.js';
import { OperatorToken } from './operator-token.entity.js';

/** Operator tokens: issued by the CLI, checked by the operator API's guard. */
@Module({
  imports: [OperatorAccountModule],
  providers: [OperatorTokenRepository, OperatorTokenService],
  exports: [OperatorTokenService, OperatorAccountModule],
})
export class OperatorTokenModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [OperatorToken];
}
