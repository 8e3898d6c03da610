import { Module } from '@nestjs/common';
import { FailedAuthenticationModule } from '#src/domain/access/failed-authentication.module.js';
import { DeliveryModule } from '#src/domain/delivery/delivery.module.js';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { RolloutEngineModule } from '#src/domain/rollout/rollout-engine.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { DdiAuthGuard } from './ddi-auth.guard.js';
import { DdiController } from './ddi.controller.js';
import { DdiService } from './ddi.service.js';

/**
 * The hawkBit DDI component (`DDI_URL`, docs/decisions.md §12): a thin adapter over the rollout
 * engine every protocol shares, for SWUpdate, rauc-hawkbit-updater, Zephyr and other hawkBit
 * clients.
 */
@Module({
  imports: [FailedAuthenticationModule, TenantModule, DeviceRegistryModule, FirmwareModule, RolloutEngineModule, DeliveryModule],
  controllers: [DdiController],
  providers: [DdiService, DdiAuthGuard],
})
export class DdiModule {}
