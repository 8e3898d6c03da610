import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { TufModule } from '#src/domain/tuf/tuf.module.js';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { GroupModule } from '#src/domain/group/group.module.js';
import { DeviceImportModule } from '#src/domain/device-import/device-import.module.js';
import { RolloutEngineModule } from '#src/domain/rollout/rollout-engine.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { IdentityModule } from '#src/domain/identity/identity.module.js';
import { OperatorDeviceAuthController } from './operator-device-auth.controller.js';
import { OperatorDeviceKeysController } from './operator-device-keys.controller.js';
import { OperatorDevicesController } from './operator-devices.controller.js';
import { OperatorFleetController } from './operator-fleet.controller.js';
import { OperatorGroupsController } from './operator-groups.controller.js';
import { OperatorLedgerController } from './operator-ledger.controller.js';
import { OperatorFirmwareController } from './operator-firmware.controller.js';
import { OperatorLedgerProofController } from './operator-ledger-proof.controller.js';
import { OperatorAccessModule } from './operator-access.module.js';
import { OperatorRolloutsController } from './operator-rollouts.controller.js';
import { OperatorTenantsController } from './operator-tenants.controller.js';

/**
 * The operator REST API under `OPERATOR_URL` (docs/decisions.md §9): thin controllers over the same
 * services the CLI drives, every route behind {@link OperatorTokenGuard}.
 */
@Module({
  imports: [
    OperatorAccessModule,
    TenantModule,
    DeviceRegistryModule,
    IdentityModule,
    FirmwareModule,
    GroupModule,
    DeviceImportModule,
    RolloutEngineModule,
    LedgerModule,
    TufModule,
  ],
  controllers: [
    OperatorTenantsController,
    OperatorDeviceKeysController,
    OperatorDevicesController,
    OperatorDeviceAuthController,
    OperatorFleetController,
    OperatorGroupsController,
    OperatorLedgerController,
    OperatorLedgerProofController,
    OperatorFirmwareController,
    OperatorRolloutsController,
  ],
})
export class OperatorModule {}
