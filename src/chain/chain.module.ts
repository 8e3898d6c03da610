import { Module } from '@nestjs/common';
import { AuthModule } from '#src/auth/auth.module.js';
import { FirmwareModule } from '#src/firmware/firmware.module.js';
import { ChainController } from './chain.controller.js';
import { ChainService } from './chain.service.js';
import { LedgerModule } from '#src/ledger/ledger.module.js';

/** The two ledger lookups of the blockchain component (CONTRACT.md §7). */
@Module({
  imports: [AuthModule, LedgerModule, FirmwareModule],
  controllers: [ChainController],
  providers: [ChainService],
})
export class ChainModule {}
