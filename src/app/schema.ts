import type { DatabaseSchema } from '#src/platform/database/data-source-options.js';
import { DeviceKey } from '#src/domain/tenant/device-key.entity.js';
import { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { Device } from '#src/domain/device/device.entity.js';
import { Firmware } from '#src/domain/firmware/firmware.entity.js';
import { DeviceGroup, GroupMember } from '#src/domain/group/device-group.entity.js';
import { Rollout, RolloutSuccess } from '#src/domain/rollout/rollout.entity.js';
import { RolloutDeviceState, RolloutDeviceTransition } from '#src/domain/rollout/rollout-device-state.entity.js';
import { LedgerEntry } from '#src/domain/ledger/ledger-entry.entity.js';
import { LedgerCheckpoint, LedgerCosignature, LedgerTreeNode } from '#src/domain/ledger/ledger-tree.entity.js';
import { LoginNonce, LoginRate } from '#src/domain/access/login-record.entity.js';
import { InitialSchema1763700000000 } from '#src/app/migrations/1763700000000-InitialSchema.js';
import { OperatorTokens1763800000000 } from '#src/app/migrations/1763800000000-OperatorTokens.js';
import { OperatorQueryIndexes1763912000000 } from '#src/app/migrations/1763912000000-OperatorQueryIndexes.js';
import { FirmwareDownloads1764100000000 } from '#src/app/migrations/1764100000000-FirmwareDownloads.js';
import { FirmwareDownload } from '#src/domain/delivery/firmware-download.entity.js';
import { OperatorAccounts1764200000000 } from '#src/app/migrations/1764200000000-OperatorAccounts.js';
import { SingleDeviceKeys1764300000000 } from '#src/app/migrations/1764300000000-SingleDeviceKeys.js';
import { RolloutDeviceStates1764400000000 } from '#src/app/migrations/1764400000000-RolloutDeviceStates.js';
import { LedgerTree1764500000000 } from '#src/app/migrations/1764500000000-LedgerTree.js';
import { TufMetadata1764510000000 } from '#src/app/migrations/1764510000000-TufMetadata.js';
import { DeviceIdentifiers1764800000000 } from '#src/app/migrations/1764800000000-DeviceIdentifiers.js';
import { DdiProtocol1764810000000 } from '#src/app/migrations/1764810000000-DdiProtocol.js';
import { MenderDevices1764900000000 } from '#src/app/migrations/1764900000000-MenderDevices.js';
import { DeviceAuthSet } from '#src/domain/identity/device-auth-set.entity.js';
import { DeploymentLog } from '#src/domain/rollout/deployment-log.entity.js';
import { TufMetadata } from '#src/domain/tuf/tuf-metadata.entity.js';
import { OperatorToken } from '#src/domain/access/operator-token.entity.js';
import { OperatorSession, OperatorUser } from '#src/domain/access/operator-user.entity.js';

/** Every entity of the app's modules. */
export const ENTITIES = [
  Tenant,
  DeviceKey,
  Device,
  Firmware,
  DeviceGroup,
  GroupMember,
  Rollout,
  RolloutSuccess,
  RolloutDeviceState,
  RolloutDeviceTransition,
  LedgerEntry,
  LedgerTreeNode,
  LedgerCheckpoint,
  LedgerCosignature,
  TufMetadata,
  LoginNonce,
  LoginRate,
  OperatorToken,
  FirmwareDownload,
  OperatorUser,
  OperatorSession,
  DeviceAuthSet,
  DeploymentLog,
];
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
];

/** The app's database schema: what the server, the CLI and the TypeORM CLI open. */
export const SCHEMA: DatabaseSchema = { entities: ENTITIES, migrations: MIGRATIONS };
