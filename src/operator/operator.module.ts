import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/ledger/ledger.module.js';
import { DeviceModule } from '#src/device/device.module.js';
import { FirmwareModule } from '#src/firmware/firmware.module.js';
import { GroupModule } from '#src/group/group.module.js';
import { RolloutModule } from '#src/rollout/rollout.module.js';
import { TenantModule } from '#src/tenant/tenant.module.js';
import { OperatorDeviceKeysController } from './operator-device-keys.controller.js';
import { OperatorDevicesController } from './operator-devices.controller.js';
import { OperatorFleetController } from './operator-fleet.controller.js';
import { OperatorGroupsController } from './operator-groups.controller.js';
import { OperatorLedgerController } from './operator-ledger.controller.js';
import { OperatorFirmwareController } from './operator-firmware.controller.js';
import { OperatorLedgerProofController } from './operator-ledger-proof.controller.js';
import { OperatorTokenModule } from './operator-token.module.js';
import { OperatorRolloutsController } from './operator-rollouts.controller.js';
import { OperatorTenantsController } from './operator-tenants.controller.js';

/**
 * The operator REST API under `OPERATOR_URL` (docs/decisions.md §9): thin controllers over the same
 * services the CLI drives, every route behind {@link OperatorTokenGuard}.
 */
@Module({
  imports: [OperatorTokenModule, TenantModule, DeviceModule, FirmwareModule, GroupModule, RolloutModule, LedgerModule],
  controllers: [
    OperatorTenantsController,
    OperatorDeviceKeysController,
    OperatorDevicesController,
    OperatorFleetController,
    OperatorGroupsController,
    OperatorLedgerController,
    OperatorLedgerProofController,
    OperatorFirmwareController,
    OperatorRolloutsController,
  ],
})
export class OperatorModule {}
