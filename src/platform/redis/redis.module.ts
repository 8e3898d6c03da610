import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** Injection token of the Redis connection: a connected `Redis`, or `null` without `REDIS_URL`. */
export const REDIS = Symbol('REDIS');

/**
 * Connects to `REDIS_URL` before the server accepts requests.
 * @throws Error when Redis cannot be reached (the URL is not repeated: it may hold a password).
 */
async function connectRedis(url: string): Promise<Redis> {
  const logger = new Logger('Redis');
  // A few quick retries per command, so a Redis outage fails a login (500) instead of holding it.
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000 });
  let lastError = '';
  redis.on('error', (error: Error) => {
    if (error.message === lastError) return; // reconnect attempts repeat the same error
    lastError = error.message;
    logger.warn(`connection error: ${error.message}`);
  });
  redis.on('ready', () => (lastError = ''));
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

/** The optional Redis connection (`REDIS_URL`), closed with the application. */
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Promise<Redis> | null => (config.redisUrl === undefined ? null : connectRedis(config.redisUrl)),
    },
    RedisShutdown,
  ],
  exports: [REDIS],
})
export class RedisModule {}
