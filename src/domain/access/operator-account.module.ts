import { Module } from '@nestjs/common';
import { loginRateLimitStorageProvider } from './login-storage.providers.js';
import { LoginRateLimitStorage } from './login-rate-limit.storage.js';
import { RedisModule } from '#src/platform/redis/redis.module.js';
import { OperatorAccountRepository } from './operator-account.repository.js';
import { OperatorSessionService } from './operator-session.service.js';
import { OperatorUserService } from './operator-user.service.js';
import { SignInThrottle } from './sign-in-throttle.js';

/**
 * Operator accounts (managed with the CLI) and their console sessions. Sign-in counters live where
 * the device login's do (the database, or Redis with `REDIS_URL`); so do the operator API guard's
 * counts of failed authentication.
 */
@Module({
  imports: [RedisModule],
  providers: [OperatorAccountRepository, OperatorUserService, OperatorSessionService, SignInThrottle, loginRateLimitStorageProvider],
  exports: [OperatorUserService, OperatorSessionService, LoginRateLimitStorage],
})
export class OperatorAccountModule {}
