import { DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, RouterModule } from '@nestjs/core';
import { AuthModule } from '#src/protocols/asvin/auth/auth.module.js';
import { ChainModule } from '#src/protocols/asvin/chain/chain.module.js';
import { CommonModule } from '#src/platform/common/common.module.js';
import { HttpErrorFilter } from '#src/platform/http/http-error.filter.js';
import { RequestValidationPipe } from '#src/platform/http/validation.pipe.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import type { ComponentName } from '#src/platform/config/components.js';
import type { Clock } from '#src/platform/common/clock.js';
import { ConfigModule } from '#src/platform/config/config.module.js';
import { DatabaseModule } from '#src/platform/database/database.module.js';
import { DeviceModule } from '#src/protocols/asvin/device/device.module.js';
import { HealthModule } from '#src/platform/health/health.module.js';
import { IpfsModule } from '#src/protocols/asvin/ipfs/ipfs.module.js';
import { componentMarker } from '#src/platform/listeners/listener-routing.js';
import { OperatorModule } from '#src/operator/operator.module.js';
import { SessionModule } from '#src/operator/session.module.js';
import { MetricsModule } from '#src/operator/metrics.module.js';
import { MetricsRegistryModule } from '#src/platform/metrics/metrics.module.js';
import { ReportModule } from '#src/protocols/asvin/report/report.module.js';
import { RolloutModule } from '#src/protocols/asvin/rollout/rollout.module.js';
import { ToolsModule } from '#src/protocols/asvin/tools/tools.module.js';
import { WitnessSubmissionModule } from '#src/domain/ledger/witness-submitter.js';
import { DdiModule } from '#src/protocols/ddi/ddi.module.js';
import { MenderModule } from '#src/protocols/mender/mender.module.js';
import { SCHEMA } from './schema.js';

/**
 * The feature modules whose controllers each component serves: authentication → `AUTH_URL`;
 * devices, reports, rollouts → `VC_URL`; ledger lookups → `BC_URL`; firmware download by CID →
 * `IPFS_URL`; TLS fingerprints → `TOOLS_URL`; hawkBit DDI → `DDI_URL`; Mender → `MENDER_URL`; operator API and console
 * sessions → `OPERATOR_URL`. The one source for
 * both the routing ({@link AppModule}) and the per-component OpenAPI documents (`src/app/openapi/`).
 */
export const COMPONENT_MODULES: Readonly<Record<ComponentName, readonly Type[]>> = {
  auth: [AuthModule],
  vc: [DeviceModule, ReportModule, RolloutModule],
  bc: [ChainModule],
  operator: [OperatorModule, SessionModule],
  ipfs: [IpfsModule],
  tools: [ToolsModule],
  ddi: [DdiModule],
  mender: [MenderModule],
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
        DatabaseModule.forRoot(SCHEMA),
        MetricsRegistryModule,
        ...componentModules.flatMap(([, modules]) => modules),
        HealthModule,
        MetricsModule,
        WitnessSubmissionModule,
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
