import { Module } from '@nestjs/common';
import { loginRateLimitStorageProvider } from '#src/auth/login-storage.providers.js';
import { LoginRateLimitStorage } from '#src/auth/login-rate-limit.storage.js';
import { RedisModule } from '#src/redis/redis.module.js';
import { OperatorAccountRepository } from './operator-account.repository.js';
import { OperatorSessionService } from './operator-session.service.js';
import { OperatorUserService } from './operator-user.service.js';
import { SessionController } from './session.controller.js';
import { SessionCookies } from './session-cookie.js';
import { SignInThrottle } from './sign-in-throttle.js';

/**
 * Operator accounts (managed with the CLI) and console sessions (`{operator_url}/session`). The
 * operator API's guard accepts a session cookie as it accepts an operator token. Sign-in counters
 * live where the device login's do (the database, or Redis with `REDIS_URL`); so do the operator
 * API guard's counts of failed authentication.
 */
@Module({
  imports: [RedisModule],
  controllers: [SessionController],
  providers: [
    OperatorAccountRepository,
    OperatorUserService,
    OperatorSessionService,
    SessionCookies,
    SignInThrottle,
    loginRateLimitStorageProvider,
  ],
  exports: [OperatorUserService, OperatorSessionService, SessionCookies, LoginRateLimitStorage],
})
export class OperatorAccountModule {}
