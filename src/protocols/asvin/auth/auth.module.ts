import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { createSecretKey } from 'node:crypto';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { RedisModule } from '#src/platform/redis/redis.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { DeviceTokenGuard } from './device-token.guard.js';
import { DeviceTokenService } from './device-token.service.js';
import { FailedAuthenticationModule } from '#src/domain/access/failed-authentication.module.js';
import { replayStoreProvider } from './replay-store.provider.js';
import { LoginLimit, LoginLimitGuard } from './login-limit.js';
import { LoginMetrics } from './login-metrics.js';
import { LoginNonce } from './login-nonce.entity.js';

/**
 * Device login, device tokens and the guard of device endpoints (docs/decisions.md §4).
 * Failed-login counters and the replay store of single-device keys are in Redis when `REDIS_URL`
 * is set, else in the database; either way every instance shares them.
 * The JWT secret is handed to @nestjs/jwt, which verifies tokens, as a KeyObject built once here:
 * with a plain string its underlying library rebuilds a key on every verify, about 50 times
 * slower. Tokens are signed by DeviceTokenService (`signHs256`), not by @nestjs/jwt.
 */
@Module({
  imports: [
    TenantModule,
    RedisModule,
    FailedAuthenticationModule,
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        secret: createSecretKey(config.jwtSecret),
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [AuthService, DeviceTokenService, DeviceTokenGuard, LoginLimit, LoginLimitGuard, LoginMetrics, replayStoreProvider],
  exports: [DeviceTokenService, DeviceTokenGuard],
})
export class AuthModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [LoginNonce];
}
