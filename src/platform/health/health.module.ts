import { Module } from '@nestjs/common';
import { COMPONENTS } from '#src/platform/config/components.js';
import { RedisModule } from '#src/platform/redis/redis.module.js';
import { DatabaseHealthRepository } from './database-health.repository.js';
import { healthControllerFor } from './health.controller.js';
import { HealthService } from './health.service.js';

/** Liveness and readiness under every component's base URL, so every listener answers them (README "Operations"). */
@Module({
  imports: [RedisModule],
  controllers: COMPONENTS.map(healthControllerFor),
  providers: [DatabaseHealthRepository, HealthService],
})
export class HealthModule {}
