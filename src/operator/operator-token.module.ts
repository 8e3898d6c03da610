import { Module } from '@nestjs/common';
import { OperatorTokenRepository } from './operator-token.repository.js';
import { OperatorTokenService } from './operator-token.service.js';

/**
 * Operator tokens: issued by the CLI, checked by the operator API's guard (`OperatorTokenGuard`,
 * provided where the API is, with the failure counters of the auth module).
 */
@Module({
  providers: [OperatorTokenRepository, OperatorTokenService],
  exports: [OperatorTokenService],
})
export class OperatorTokenModule {}
