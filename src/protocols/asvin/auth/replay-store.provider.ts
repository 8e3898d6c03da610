import type { FactoryProvider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { REDIS } from '#src/platform/redis/redis.module.js';
import { LoginNonceRepository } from './login-nonce.repository.js';
import { RedisReplayStore, ReplayStore } from './replay-store.js';

/** The {@link ReplayStore} of single-device keys: Redis when `REDIS_URL` is set, else the `login_nonce` table. */
export const replayStoreProvider: FactoryProvider<ReplayStore> = {
  provide: ReplayStore,
  inject: [REDIS, APP_CONFIG, UnitOfWork],
  useFactory: (redis: Redis | null, config: AppConfig, unitOfWork: UnitOfWork): ReplayStore =>
    redis ? new RedisReplayStore(redis, config.redisKeyPrefix) : new LoginNonceRepository(unitOfWork),
};
