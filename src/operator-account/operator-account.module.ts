import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DatabaseLoginRateLimitStorage, LoginRateLimitStorage } from '#src/auth/login-rate-limit.storage.js';
import { RedisLoginRateLimitStorage } from '#src/auth/redis-login-rate-limit.storage.js';
import { Clock } from '#src/common/clock.js';
import type { AppConfig } from '#src/config/app-config.js';
import { APP_CONFIG } from '#src/config/config.module.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';
import { REDIS, RedisModule } from '#src/redis/redis.module.js';
import { OperatorAccountRepository } from './operator-account.repository.js';
import { OperatorSessionService } from './operator-session.service.js';
import { OperatorUserService } from './operator-user.service.js';
import { SessionController } from './session.controller.js';
import { SessionCookies } from './session-cookie.js';
import { SignInThrottle } from './sign-in-throttle.js';

/**
 * Operator accounts (managed with the CLI) and console sessions (`{operator_url}/session`). The
 * operator API's guard accepts a session cookie as it accepts an operator token. Sign-in counters
 * live where the device login's do (the database, or Redis with `REDIS_URL`).
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
    {
      provide: LoginRateLimitStorage,
      inject: [REDIS, APP_CONFIG, UnitOfWork, Clock],
      useFactory: (redis: Redis | null, config: AppConfig, unitOfWork: UnitOfWork, clock: Clock): LoginRateLimitStorage =>
        redis ? new RedisLoginRateLimitStorage(redis, config.redisKeyPrefix, clock) : new DatabaseLoginRateLimitStorage(unitOfWork, clock),
    },
  ],
  exports: [OperatorUserService, OperatorSessionService, SessionCookies],
})
export class OperatorAccountModule {}
