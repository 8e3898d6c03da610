import { Module } from '@nestjs/common';
import { FailedAuthenticationModule } from '#src/domain/access/failed-authentication.module.js';
import { DeliveryModule } from '#src/domain/delivery/delivery.module.js';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { IdentityModule } from '#src/domain/identity/identity.module.js';
import { RolloutEngineModule } from '#src/domain/rollout/rollout-engine.module.js';
import { MenderAuthGuard } from './mender-auth.guard.js';
import { MenderController } from './mender.controller.js';
import { MenderService } from './mender.service.js';

/**
 * The Mender component (`MENDER_URL`, docs/decisions.md §13): a thin adapter over the device
 * identities and the rollout engine every protocol shares, for the Mender client.
 */
@Module({
  imports: [FailedAuthenticationModule, IdentityModule, DeviceRegistryModule, FirmwareModule, RolloutEngineModule, DeliveryModule],
  controllers: [MenderController],
  providers: [MenderService, MenderAuthGuard],
})
export class MenderModule {}
