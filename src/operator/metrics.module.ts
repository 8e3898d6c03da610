import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';

/** Prometheus metrics at `{operator_url}/metrics` (README "Operations"): the registry every module feeds. */
@Module({
  controllers: [MetricsController],
})
export class MetricsModule {}
