import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, RouterModule } from '@nestjs/core';
import { AuthModule } from './auth/auth.module.js';
import { ChainModule } from './chain/chain.module.js';
import { CommonModule } from './common/common.module.js';
import { HttpErrorFilter } from './common/http-error.filter.js';
import { RequestValidationPipe } from './common/validation.pipe.js';
import type { AppConfig } from './config/app-config.js';
import type { Clock } from './common/clock.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { DeviceModule } from './device/device.module.js';
import { FirmwareModule } from './firmware/firmware.module.js';
import { HealthModule } from './health/health.module.js';
import { componentMarker } from './listeners/listener-routing.js';
import { OperatorModule } from './operator/operator.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { ReportModule } from './report/report.module.js';
import { RolloutModule } from './rollout/rollout.module.js';

/**
 * The whole server. Each feature module is mounted on its component (CONTRACT.md §2):
 * authentication → `AUTH_URL`; devices, reports, rollouts, firmware download → `VC_URL`;
 * ledger lookups → `BC_URL`; the operator REST API → `OPERATOR_URL`. The listener layer moves each component's routes to its base URL.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, clock?: Clock): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        CommonModule.forRoot(clock),
        DatabaseModule,
        AuthModule,
        DeviceModule,
        ReportModule,
        RolloutModule,
        FirmwareModule,
        ChainModule,
        OperatorModule,
        HealthModule,
        MetricsModule,
        RouterModule.register([
          { path: componentMarker('auth'), module: AuthModule },
          { path: componentMarker('vc'), module: DeviceModule },
          { path: componentMarker('vc'), module: ReportModule },
          { path: componentMarker('vc'), module: RolloutModule },
          { path: componentMarker('vc'), module: FirmwareModule },
          { path: componentMarker('bc'), module: ChainModule },
          { path: componentMarker('operator'), module: OperatorModule },
          { path: componentMarker('operator'), module: MetricsModule },
        ]),
      ],
      providers: [
        { provide: APP_PIPE, useClass: RequestValidationPipe },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}
