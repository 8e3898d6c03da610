import { DynamicModule, Module } from '@nestjs/common';
import { userInfo } from 'node:os';
import { DefaultActorModule } from '#src/ledger/ledger-actor.js';
import { LedgerModule } from '#src/ledger/ledger.module.js';
import { CommonModule } from '#src/common/common.module.js';
import type { AppConfig } from '#src/config/app-config.js';
import { ConfigModule } from '#src/config/config.module.js';
import { DatabaseModule } from '#src/database/database.module.js';
import { OperatorTokenModule } from '#src/operator/operator-token.module.js';
import { OperatorAccountModule } from '#src/operator-account/operator-account.module.js';
import { FirmwareModule } from '#src/firmware/firmware.module.js';
import { GroupModule } from '#src/group/group.module.js';
import { RolloutModule } from '#src/rollout/rollout.module.js';
import { TenantModule } from '#src/tenant/tenant.module.js';
import { TufModule } from '#src/tuf/tuf.module.js';

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
        DatabaseModule,
        TenantModule,
        FirmwareModule,
        GroupModule,
        RolloutModule,
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
