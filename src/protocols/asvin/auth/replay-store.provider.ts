import type { FactoryProvider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { REDIS } from '#src/platform/redis/redis.module.js';
import { RedisFallback } from '#src/platform/redis/redis-fallback.js';
import { LoginNonceRepository } from './login-nonce.repository.js';
import { FallbackReplayStore, RedisReplayStore, ReplayStore } from './replay-store.js';

/**
 * The {@link ReplayStore} of single-device keys: Redis when `REDIS_URL` is set (the `login_nonce`
 * table while Redis is unreachable), else the `login_nonce` table.
 */
export const replayStoreProvider: FactoryProvider<ReplayStore> = {
  provide: ReplayStore,
  inject: [REDIS, RedisFallback, APP_CONFIG, UnitOfWork],
  useFactory: (redis: Redis | null, fallback: RedisFallback | null, config: AppConfig, unitOfWork: UnitOfWork): ReplayStore =>
    redis && fallback
      ? new FallbackReplayStore(fallback, new RedisReplayStore(redis, config.redisKeyPrefix), new LoginNonceRepository(unitOfWork))
      : new LoginNonceRepository(unitOfWork),
};
