import { DynamicModule, Module } from '@nestjs/common';
import { userInfo } from 'node:os';
import { DefaultActorModule } from '#src/domain/ledger/ledger-actor.js';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { CommonModule } from '#src/platform/common/common.module.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { ConfigModule } from '#src/platform/config/config.module.js';
import { DatabaseModule } from '#src/platform/database/database.module.js';
import { OperatorTokenModule } from '#src/domain/access/operator-token.module.js';
import { OperatorAccountModule } from '#src/domain/access/operator-account.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { GroupModule } from '#src/domain/group/group.module.js';
import { DeviceImportModule } from '#src/domain/device-import/device-import.module.js';
import { IdentityModule } from '#src/domain/identity/identity.module.js';
import { RolloutEngineModule } from '#src/domain/rollout/rollout-engine.module.js';
import { MetricsRegistryModule } from '#src/platform/metrics/metrics.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { TufModule } from '#src/domain/tuf/tuf.module.js';
import { SCHEMA } from '#src/app/schema.js';

/**
 * The services the CLI drives: the same ones the server uses, without listeners. Its changes
 * record the operating-system account that ran it as their actor (`cli:<user>`) on the ledger.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        CommonModule.forRoot(),
        DatabaseModule.forRoot(SCHEMA),
        MetricsRegistryModule,
        TenantModule,
        FirmwareModule,
        GroupModule,
        DeviceImportModule,
        IdentityModule,
        RolloutEngineModule,
        LedgerModule,
        TufModule,
        OperatorTokenModule,
        OperatorAccountModule,
        DefaultActorModule.forRoot({ kind: 'cli', name: cliAccount() }),
      ],
    };
  }
}

/** The operating-system account running the CLI (`USER` when the system has no name for the uid). */
function cliAccount(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}
