import { Global, Module } from '@nestjs/common';
import { Registry } from 'prom-client';
import { HttpMetrics } from './http-metrics.js';
import { createMetricsRegistry } from './metrics-registry.js';

/**
 * The app's Prometheus registry and its request metrics, global: each module registers its own
 * metrics in it (login counters in the auth module, rollout gauges in the rollout engine).
 */
@Global()
@Module({
  providers: [{ provide: Registry, useFactory: createMetricsRegistry }, HttpMetrics],
  exports: [Registry, HttpMetrics],
})
export class MetricsRegistryModule {}
