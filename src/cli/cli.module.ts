import { DynamicModule, Module } from '@nestjs/common';
import { LedgerModule } from '#src/chain/ledger.module.js';
import { CommonModule } from '#src/common/common.module.js';
import type { AppConfig } from '#src/config/app-config.js';
import { ConfigModule } from '#src/config/config.module.js';
import { DatabaseModule } from '#src/database/database.module.js';
import { OperatorTokenModule } from '#src/operator/operator-token.module.js';
import { FirmwareModule } from '#src/firmware/firmware.module.js';
import { RolloutModule } from '#src/rollout/rollout.module.js';
import { TenantModule } from '#src/tenant/tenant.module.js';

/** The services the CLI drives: the same ones the server uses, without listeners. */
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
        RolloutModule,
        LedgerModule,
        OperatorTokenModule,
      ],
    };
  }
}
