import { Global, Module } from '@nestjs/common';
import { Registry } from 'prom-client';
import { RolloutModule } from '#src/rollout/rollout.module.js';
import { TenantModule } from '#src/tenant/tenant.module.js';
import { HttpMetrics } from './http-metrics.js';
import { LoginMetrics } from './login-metrics.js';
import { createMetricsRegistry } from './metrics-registry.js';
import { MetricsController } from './metrics.controller.js';
import { RolloutMetrics } from './rollout-metrics.js';

/**
 * The app's registry and the metrics other modules feed (request and login counters), global so
 * the auth module can count logins without importing the rollout side.
 */
@Global()
@Module({
  providers: [{ provide: Registry, useFactory: createMetricsRegistry }, HttpMetrics, LoginMetrics],
  exports: [Registry, HttpMetrics, LoginMetrics],
})
export class MetricsRegistryModule {}

/** Prometheus metrics at `{operator_url}/metrics` (README "Operations"). */
@Module({
  imports: [MetricsRegistryModule, TenantModule, RolloutModule],
  controllers: [MetricsController],
  providers: [RolloutMetrics],
})
export class MetricsModule {}
