import { Module } from '@nestjs/common';
import type { ComponentName } from '#src/config/app-config.js';
import { DatabaseHealthRepository } from './database-health.repository.js';
import { healthControllerFor } from './health.controller.js';
import { HealthService } from './health.service.js';

/** Every component, so every listener and base URL answers `/healthz` and `/readyz`. */
const COMPONENTS: readonly ComponentName[] = ['auth', 'vc', 'bc', 'operator'];

/** Liveness and readiness under each component's base URL (README "Operations"). */
@Module({
  controllers: COMPONENTS.map(healthControllerFor),
  providers: [DatabaseHealthRepository, HealthService],
})
export class HealthModule {}
