import { Module } from '@nestjs/common';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { GroupModule } from '#src/domain/group/group.module.js';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { DeviceStateRepository } from './device-state.repository.js';
import { DeviceStateService } from './device-state.service.js';
import { DeviceRolloutService } from './device-rollout.service.js';
import { DeploymentLog } from './deployment-log.entity.js';
import { DeploymentLogRepository } from './deployment-log.repository.js';
import { FleetService } from './fleet.service.js';
import { OfferWriter } from './offer-writer.js';
import { RolloutMetrics } from './rollout-metrics.js';
import { RolloutPlanService } from './rollout-plan.service.js';
import { RolloutProgressService } from './rollout-progress.service.js';
import { RolloutRepository } from './rollout.repository.js';
import { Rollout, RolloutRampMinute, RolloutSuccess } from './rollout.entity.js';
import { RolloutDeviceState, RolloutDeviceTransition } from './rollout-device-state.entity.js';

/**
 * The rollout engine every device protocol shares (docs/decisions.md §8, §10): plans and their
 * lifecycle, the targeted devices' states, waves and thresholds, what a device is offered and what
 * its reports mean, and the rollout metrics.
 */
@Module({
  imports: [LedgerModule, DeviceRegistryModule, FirmwareModule, GroupModule, TenantModule],
  providers: [
    RolloutRepository,
    DeviceStateRepository,
    DeviceStateService,
    DeviceRolloutService,
    DeploymentLogRepository,
    OfferWriter,
    RolloutPlanService,
    RolloutProgressService,
    FleetService,
    RolloutMetrics,
  ],
  exports: [RolloutRepository, RolloutPlanService, RolloutProgressService, FleetService, DeviceStateService, DeviceRolloutService],
})
export class RolloutEngineModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [Rollout, RolloutSuccess, RolloutDeviceState, RolloutDeviceTransition, DeploymentLog, RolloutRampMinute];
}
