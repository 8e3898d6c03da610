import { Module } from '@nestjs/common';
import { RedisModule } from '#src/platform/redis/redis.module.js';
import { FailedAuthentication } from './failed-authentication.js';
import { LoginRateLimitStorage } from './login-rate-limit.storage.js';
import { loginRateLimitStorageProvider } from './login-storage.providers.js';
import { LoginRate } from './failure-counter.entity.js';

/** The one rule for failed authentication and its counters (in Redis with `REDIS_URL`, else in the database). */
@Module({
  imports: [RedisModule],
  providers: [loginRateLimitStorageProvider, FailedAuthentication],
  exports: [FailedAuthentication, LoginRateLimitStorage],
})
export class FailedAuthenticationModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [LoginRate];
}
