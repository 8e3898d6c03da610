import type { FactoryProvider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { REDIS } from '#src/platform/redis/redis.module.js';
import { RedisFallback } from '#src/platform/redis/redis-fallback.js';
import { DatabaseLoginRateLimitStorage, LoginRateLimitStorage } from './login-rate-limit.storage.js';
import { FallbackLoginRateLimitStorage, RedisLoginRateLimitStorage } from './redis-login-rate-limit.storage.js';

// Where the login bookkeeping lives, decided here and nowhere else: in Redis when `REDIS_URL` is
// set (in the database while Redis is unreachable), else in the database; either way shared by
// every instance (docs/decisions.md §4).

/**
 * The {@link LoginRateLimitStorage} of a module: in Redis when `REDIS_URL` is set (in the database
 * while Redis is unreachable: {@link FallbackLoginRateLimitStorage}), else in the database; either
 * way shared by every instance. The module imports `RedisModule`. Failed device
 * logins, console sign-ins and failed operator authentications count in it under keys of their own.
 */
export const loginRateLimitStorageProvider: FactoryProvider<LoginRateLimitStorage> = {
  provide: LoginRateLimitStorage,
  inject: [REDIS, RedisFallback, APP_CONFIG, DataSource, UnitOfWork, Clock],
  useFactory: (
    redis: Redis | null,
    fallback: RedisFallback | null,
    config: AppConfig,
    dataSource: DataSource,
    unitOfWork: UnitOfWork,
    clock: Clock,
  ): LoginRateLimitStorage =>
    redis && fallback
      ? new FallbackLoginRateLimitStorage(
          fallback,
          new RedisLoginRateLimitStorage(redis, config.redisKeyPrefix, clock),
          new DatabaseLoginRateLimitStorage(dataSource, unitOfWork, clock),
        )
      : new DatabaseLoginRateLimitStorage(dataSource, unitOfWork, clock),
};
