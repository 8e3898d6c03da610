import type { DatabaseSchema } from '#src/platform/database/data-source-options.js';
import { FailedAuthenticationModule } from '#src/domain/access/failed-authentication.module.js';
import { OperatorAccountModule } from '#src/domain/access/operator-account.module.js';
import { OperatorTokenModule } from '#src/domain/access/operator-token.module.js';
import { DeliveryModule } from '#src/domain/delivery/delivery.module.js';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { IdentityModule } from '#src/domain/identity/identity.module.js';
import { GroupModule } from '#src/domain/group/group.module.js';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { RolloutEngineModule } from '#src/domain/rollout/rollout-engine.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { TufModule } from '#src/domain/tuf/tuf.module.js';
import { AuthModule } from '#src/protocols/asvin/auth/auth.module.js';
import { InitialSchema1763700000000 } from '#src/app/migrations/1763700000000-InitialSchema.js';
import { OperatorTokens1763800000000 } from '#src/app/migrations/1763800000000-OperatorTokens.js';
import { OperatorQueryIndexes1763912000000 } from '#src/app/migrations/1763912000000-OperatorQueryIndexes.js';
import { FirmwareDownloads1764100000000 } from '#src/app/migrations/1764100000000-FirmwareDownloads.js';
import { OperatorAccounts1764200000000 } from '#src/app/migrations/1764200000000-OperatorAccounts.js';
import { SingleDeviceKeys1764300000000 } from '#src/app/migrations/1764300000000-SingleDeviceKeys.js';
import { RolloutDeviceStates1764400000000 } from '#src/app/migrations/1764400000000-RolloutDeviceStates.js';
import { LedgerTree1764500000000 } from '#src/app/migrations/1764500000000-LedgerTree.js';
import { TufMetadata1764510000000 } from '#src/app/migrations/1764510000000-TufMetadata.js';
import { DeviceIdentifiers1764800000000 } from '#src/app/migrations/1764800000000-DeviceIdentifiers.js';
import { DdiProtocol1764810000000 } from '#src/app/migrations/1764810000000-DdiProtocol.js';
import { MenderDevices1764900000000 } from '#src/app/migrations/1764900000000-MenderDevices.js';
import { RolloutWaveCounts1765000000000 } from '#src/app/migrations/1765000000000-RolloutWaveCounts.js';
import { RolloutWindowsRamp1765100000000 } from '#src/app/migrations/1765100000000-RolloutWindowsRamp.js';
import { RolloutAbortTimeouts1765200000000 } from '#src/app/migrations/1765200000000-RolloutAbortTimeouts.js';
import { DynamicGroupsLabels1765300000000 } from '#src/app/migrations/1765300000000-DynamicGroupsLabels.js';
import { WaveCountsPerStatement1765400000000 } from '#src/app/migrations/1765400000000-WaveCountsPerStatement.js';
import { RolloutRollback1765500000000 } from '#src/app/migrations/1765500000000-RolloutRollback.js';
import { OperatorReadIndexes1765600000000 } from '#src/app/migrations/1765600000000-OperatorReadIndexes.js';
import { GroupMemberCounts1765700000000 } from '#src/app/migrations/1765700000000-GroupMemberCounts.js';
import { DeviceCounts1765800000000 } from '#src/app/migrations/1765800000000-DeviceCounts.js';
import { DeviceSearch1765900000000 } from '#src/app/migrations/1765900000000-DeviceSearch.js';
import { DeviceVersionTypeIndex1765910000000 } from '#src/app/migrations/1765910000000-DeviceVersionTypeIndex.js';
import { DeviceKeyGateway1766000000000 } from '#src/app/migrations/1766000000000-DeviceKeyGateway.js';
import { DeviceIdentifierLength1766010000000 } from '#src/app/migrations/1766010000000-DeviceIdentifierLength.js';
import { RolloutOfferWhen1766020000000 } from '#src/app/migrations/1766020000000-RolloutOfferWhen.js';

/** Every entity of the app's modules: each module names its own. */
export const ENTITIES: NonNullable<DatabaseSchema['entities']> = (
  [
    TenantModule,
    DeviceRegistryModule,
    IdentityModule,
    FirmwareModule,
    GroupModule,
    RolloutEngineModule,
    LedgerModule,
    TufModule,
    DeliveryModule,
    FailedAuthenticationModule,
    OperatorTokenModule,
    OperatorAccountModule,
    AuthModule,
  ] as { entities: readonly (new () => unknown)[] }[]
).flatMap((module) => module.entities);

/** Every migration, oldest first (each has a down()). */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  OperatorTokens1763800000000,
  OperatorQueryIndexes1763912000000,
  FirmwareDownloads1764100000000,
  OperatorAccounts1764200000000,
  SingleDeviceKeys1764300000000,
  RolloutDeviceStates1764400000000,
  LedgerTree1764500000000,
  TufMetadata1764510000000,
  DeviceIdentifiers1764800000000,
  DdiProtocol1764810000000,
  MenderDevices1764900000000,
  RolloutWaveCounts1765000000000,
  RolloutWindowsRamp1765100000000,
  RolloutAbortTimeouts1765200000000,
  DynamicGroupsLabels1765300000000,
  WaveCountsPerStatement1765400000000,
  RolloutRollback1765500000000,
  OperatorReadIndexes1765600000000,
  GroupMemberCounts1765700000000,
  DeviceCounts1765800000000,
  DeviceSearch1765900000000,
  DeviceVersionTypeIndex1765910000000,
  DeviceKeyGateway1766000000000,
  DeviceIdentifierLength1766010000000,
  RolloutOfferWhen1766020000000,
];

/** The app's database schema: what the server, the CLI and the TypeORM CLI open. */
export const SCHEMA: DatabaseSchema = { entities: ENTITIES, migrations: MIGRATIONS };
