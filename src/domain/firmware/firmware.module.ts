import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { ArtifactStore } from './artifact-store.js';
import { FirmwareRepository } from './firmware.repository.js';
import { FirmwareService } from './firmware.service.js';
import { Firmware } from './firmware.entity.js';

/** Firmware artifacts: publish, digests, CID, storage (the IPFS component serves the downloads). */
@Module({
  imports: [LedgerModule, TenantModule],
  providers: [ArtifactStore, FirmwareRepository, FirmwareService],
  exports: [FirmwareService, ArtifactStore],
})
export class FirmwareModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [Firmware];
}
