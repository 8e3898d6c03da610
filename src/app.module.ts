import { DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, RouterModule } from '@nestjs/core';
import { AuthModule } from './auth/auth.module.js';
import { ChainModule } from './chain/chain.module.js';
import { CommonModule } from './common/common.module.js';
import { HttpErrorFilter } from './common/http-error.filter.js';
import { RequestValidationPipe } from './common/validation.pipe.js';
import type { AppConfig, ComponentName } from './config/app-config.js';
import type { Clock } from './common/clock.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { DeviceModule } from './device/device.module.js';
import { HealthModule } from './health/health.module.js';
import { IpfsModule } from './ipfs/ipfs.module.js';
import { componentMarker } from './listeners/listener-routing.js';
import { OperatorModule } from './operator/operator.module.js';
import { OperatorAccountModule } from './operator-account/operator-account.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { ReportModule } from './report/report.module.js';
import { RolloutModule } from './rollout/rollout.module.js';
import { ToolsModule } from './tools/tools.module.js';

/**
 * The feature modules whose controllers each component serves: authentication → `AUTH_URL`;
 * devices, reports, rollouts → `VC_URL`; ledger lookups → `BC_URL`; firmware download by CID →
 * `IPFS_URL`; TLS fingerprints → `TOOLS_URL`; operator API and console sessions → `OPERATOR_URL`. The one source for
 * both the routing ({@link AppModule}) and the per-component OpenAPI documents (`src/openapi/`).
 */
export const COMPONENT_MODULES: Readonly<Record<ComponentName, readonly Type[]>> = {
  auth: [AuthModule],
  vc: [DeviceModule, ReportModule, RolloutModule],
  bc: [ChainModule],
  operator: [OperatorModule, OperatorAccountModule],
  ipfs: [IpfsModule],
  tools: [ToolsModule],
};

const componentModules = Object.entries(COMPONENT_MODULES) as [ComponentName, readonly Type[]][];

/**
 * The whole server. Each feature module of {@link COMPONENT_MODULES} is mounted on its
 * component; the listener layer moves each component's routes to its base URL.
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
        ...componentModules.flatMap(([, modules]) => modules),
        HealthModule,
        MetricsModule,
        RouterModule.register([
          ...componentModules.flatMap(([component, modules]) => modules.map((module) => ({ path: componentMarker(component), module }))),
          // Prometheus scrapes `{operator_url}/metrics`; not part of the operator API's document.
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
