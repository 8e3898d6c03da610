import { Module } from '@nestjs/common';
import { OperatorTokenModule } from '#src/domain/access/operator-token.module.js';
import { OperatorTokenGuard } from './operator-token.guard.js';
import { SessionCookies } from './session-cookie.js';

/**
 * Who may use the operator API: the guard of every operator route, which admits operator tokens
 * and console sessions (and counts failed attempts where logins are counted), and the session
 * cookie it reads. Imported by every module with operator controllers.
 */
@Module({
  imports: [OperatorTokenModule],
  providers: [OperatorTokenGuard, SessionCookies],
  exports: [OperatorTokenGuard, SessionCookies, OperatorTokenModule],
})
export class OperatorAccessModule {}
