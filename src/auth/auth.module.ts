import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { ThrottlerModule } from '@nestjs/throttler';
import { createSecretKey } from 'node:crypto';
import type { AppConfig } from '#src/config/app-config.js';
import { APP_CONFIG } from '#src/config/config.module.js';
import { ErrorMessages } from '#src/common/http-error.filter.js';
import { TenantModule } from '#src/tenant/tenant.module.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { DeviceTokenGuard } from './device-token.guard.js';
import { DeviceTokenService } from './device-token.service.js';
import { LoginNonceRepository } from './login-nonce.repository.js';
import { LoginRateLimitStorage } from './login-rate-limit.storage.js';
import { LoginThrottlerGuard } from './login-throttler.guard.js';

/**
 * Device login, device tokens and the guard of device endpoints (CONTRACT.md §4).
 * The JWT secret is handed to @nestjs/jwt as a KeyObject built once here: with a plain string
 * its underlying library rebuilds a key on every verify, about 50 times slower.
 */
@Module({
  imports: [
    TenantModule,
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        secret: createSecretKey(config.jwtSecret),
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        throttlers: [{ name: 'login', ttl: config.loginRateWindowSeconds * 1000, limit: config.loginRateLimit }],
        errorMessage: ErrorMessages.tooManyRequests,
        setHeaders: false,
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [AuthService, DeviceTokenService, DeviceTokenGuard, LoginNonceRepository, LoginRateLimitStorage, LoginThrottlerGuard],
  exports: [DeviceTokenService, DeviceTokenGuard],
})
export class AuthModule {}
