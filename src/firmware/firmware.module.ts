import { Module } from '@nestjs/common';
import { AuthModule } from '#src/auth/auth.module.js';
import { LedgerModule } from '#src/chain/ledger.module.js';
import { ArtifactStore } from './artifact-store.js';
import { FirmwareController } from './firmware.controller.js';
import { FirmwareRepository } from './firmware.repository.js';
import { FirmwareService } from './firmware.service.js';

/** Firmware artifacts: publish, digests, CID, storage, download. */
@Module({
  imports: [AuthModule, LedgerModule],
  controllers: [FirmwareController],
  providers: [ArtifactStore, FirmwareRepository, FirmwareService],
  exports: [FirmwareService],
})
export class FirmwareModule {}
