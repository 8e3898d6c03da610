import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/ledger/ledger.module.js';
import { DeviceModule } from '#src/device/device.module.js';
import { FirmwareModule } from '#src/firmware/firmware.module.js';
import { RolloutModule } from '#src/rollout/rollout.module.js';
import { TenantModule } from '#src/tenant/tenant.module.js';
import { DeviceKeysController } from './device-keys.controller.js';
import { DevicesController } from './devices.controller.js';
import { FleetController } from './fleet.controller.js';
import { GroupsController } from './groups.controller.js';
import { LedgerController } from './ledger.controller.js';
import { OperatorFirmwareController } from './firmware.controller.js';
import { OperatorTokenModule } from './operator-token.module.js';
import { OperatorRolloutController } from './rollout.controller.js';
import { TenantsController } from './tenants.controller.js';

/**
 * The operator REST API under `OPERATOR_URL` (CONTRACT.md §9): thin controllers over the same
 * services the CLI drives, every route behind {@link OperatorTokenGuard}.
 */
@Module({
  imports: [OperatorTokenModule, TenantModule, DeviceModule, FirmwareModule, RolloutModule, LedgerModule],
  controllers: [
    TenantsController,
    DeviceKeysController,
    DevicesController,
    FleetController,
    GroupsController,
    LedgerController,
    OperatorFirmwareController,
    OperatorRolloutController,
  ],
})
export class OperatorModule {}
