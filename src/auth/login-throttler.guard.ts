import { Inject, Injectable, Optional, type ExecutionContext } from '@nestjs/common';
import { hash } from 'node:crypto';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  ThrottlerException,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorMessages } from '#src/common/http-error.filter.js';
import { LoginMetrics } from '#src/metrics/login-metrics.js';
import { LoginRateLimitStorage } from './login-rate-limit.storage.js';

/**
 * Login rate limit (CONTRACT.md §4): `LOGIN_RATE_LIMIT` per `LOGIN_RATE_WINDOW_SECONDS` per
 * client IP and device key, counted in the database. Runs before validation, so every login
 * answer (200, 400, 401, 429) carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` (epoch seconds); a 429 also carries `Retry-After` (seconds).
 * The client IP is fastify's `request.ip`, which honours `X-Forwarded-For` only with `TRUST_PROXY`.
 */
@Injectable()
export class LoginThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    // Explicit: the parent's own @InjectThrottlerStorage() on this position is inherited otherwise.
    @Inject(LoginRateLimitStorage) private readonly counters: LoginRateLimitStorage,
    reflector: Reflector,
    @Optional() @Inject(LoginMetrics) private readonly metrics?: LoginMetrics,
  ) {
    super(options, counters, reflector);
  }

  /** Per handler: whether it or its controller carries throttler metadata (`@Throttle`, `@SkipThrottle`, …). */
  private readonly decorated = new WeakMap<object, boolean>();

  /**
   * The parent's check for the one throttler configured (`login`: a fixed limit and window, no
   * `skipIf`) on a route without throttler decorators (looked up once per handler), without the
   * parent's per-request reflection of six metadata keys and its awaits. Anything else takes the
   * parent's way.
   */
  override canActivate(context: ExecutionContext): Promise<boolean> {
    const [throttler, ...others] = this.throttlers;
    if (
      this.isDecorated(context) ||
      throttler === undefined ||
      others.length > 0 ||
      typeof throttler.limit !== 'number' ||
      typeof throttler.ttl !== 'number' ||
      throttler.skipIf !== undefined ||
      this.commonOptions.skipIf !== undefined ||
      throttler.getTracker !== undefined ||
      throttler.generateKey !== undefined
    ) {
      return super.canActivate(context);
    }
    return this.handleRequest({
      context,
      limit: throttler.limit,
      ttl: throttler.ttl,
      throttler,
      blockDuration: typeof throttler.blockDuration === 'number' ? throttler.blockDuration : throttler.ttl,
      getTracker: this.commonOptions.getTracker!,
      generateKey: this.commonOptions.generateKey!,
    });
  }

  private isDecorated(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let decorated = this.decorated.get(handler);
    if (decorated === undefined) {
      const keys: unknown[] = (Reflect.getMetadataKeys(handler) as unknown[]).concat(
        Reflect.getMetadataKeys(context.getClass()) as unknown[],
      );
      decorated = keys.some((key) => typeof key === 'string' && key.startsWith('THROTTLER:'));
      this.decorated.set(handler, decorated);
    }
    return decorated;
  }

  /** The parent's key (SHA-256 hex of class, handler, throttler name and tracker), hashed in one call. */
  protected override generateKey(context: ExecutionContext, suffix: string, name: string): string {
    return hash('sha256', `${context.getClass().name}-${context.getHandler().name}-${name}-${suffix}`, 'hex');
  }

  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    const { ip, body } = request as unknown as FastifyRequest;
    const deviceKey = typeof body === 'object' && body !== null ? (body as { device_key?: unknown }).device_key : undefined;
    return Promise.resolve(`${ip}|${typeof deviceKey === 'string' ? deviceKey : ''}`);
  }

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, getTracker, generateKey } = request;
    const http = context.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const key = generateKey(context, await getTracker(http.getRequest(), context), throttler.name ?? 'login');
    const record = await this.counters.increment(key, ttl, limit);
    void reply.header('X-RateLimit-Limit', limit);
    void reply.header('X-RateLimit-Remaining', Math.max(0, limit - record.totalHits));
    void reply.header('X-RateLimit-Reset', record.resetsAt);
    if (record.isBlocked) {
      void reply.header('Retry-After', record.timeToBlockExpire);
      this.metrics?.record('rate_limited');
      throw new ThrottlerException(ErrorMessages.tooManyRequests);
    }
    return true;
  }
}
