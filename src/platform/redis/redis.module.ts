import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { Clock } from '#src/platform/common/clock.js';
import { errorMessage } from '#src/platform/logging/error-message.js';
import { REDIS_OPTIONS, RedisFallback } from './redis-fallback.js';

/** Injection token of the Redis connection: a connected `Redis`, or `null` without `REDIS_URL`. */
export const REDIS = Symbol('REDIS');

/**
 * Connects to `REDIS_URL` before the server accepts requests. Later outages are {@link RedisFallback}'s
 * to handle (and log): the connection comes back by itself.
 * @throws Error when Redis cannot be reached at start (the URL is not repeated: it may hold a password).
 */
async function connectRedis(url: string): Promise<Redis> {
  const logger = new Logger('Redis');
  const redis = new Redis(url, { lazyConnect: true, ...REDIS_OPTIONS });
  let lastError = '';
  // Keeps errors from going unhandled; what they say is in the line of an outage (RedisFallback).
  redis.on('error', (error: Error) => (lastError = error.message));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Redis at REDIS_URL is not reachable: ${lastError || errorMessage(error)}`);
  }
  logger.log('login rate-limit counters and the replay store are in Redis');
  return redis;
}

/** Closes the Redis connection once the listeners are closed and in-flight requests are done. */
@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}

/**
 * The optional Redis connection (`REDIS_URL`), closed with the application, and its
 * {@link RedisFallback} (`null` without `REDIS_URL`): one per process, so an outage is logged once.
 */
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Promise<Redis> | null => (config.redisUrl === undefined ? null : connectRedis(config.redisUrl)),
    },
    {
      provide: RedisFallback,
      inject: [REDIS, Clock],
      useFactory: (redis: Redis | null, clock: Clock): RedisFallback | null => (redis ? new RedisFallback(redis, clock) : null),
    },
    RedisShutdown,
  ],
  exports: [REDIS, RedisFallback],
})
export class RedisModule {}
