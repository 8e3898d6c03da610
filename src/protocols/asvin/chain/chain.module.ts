import { Module } from '@nestjs/common';
import { AuthModule } from '#src/protocols/asvin/auth/auth.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { ChainController } from './chain.controller.js';
import { ChainService } from './chain.service.js';
import { TransparencyController } from './transparency.controller.js';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { TufModule } from '#src/domain/tuf/tuf.module.js';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';

/**
 * The blockchain component: the two ledger lookups (docs/decisions.md §7), the proofs behind them, and
 * the public Merkle log (checkpoints, cosignatures, proofs of hashes).
 */
@Module({
  imports: [AuthModule, LedgerModule, FirmwareModule, TufModule, DeviceRegistryModule],
  controllers: [ChainController, TransparencyController],
  providers: [ChainService],
})
export class ChainModule {}
