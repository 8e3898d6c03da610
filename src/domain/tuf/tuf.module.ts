import { Module } from '@nestjs/common';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { TufKeys } from './tuf-keys.js';
import { TufRepository } from './tuf.repository.js';
import { TufService } from './tuf.service.js';
import { TufMetadata } from './tuf-metadata.entity.js';

/** Signed update metadata (TUF) of each tenant's firmware per device type; served by the IPFS component. */
@Module({
  imports: [FirmwareModule],
  providers: [TufKeys, TufRepository, TufService],
  exports: [TufService, TufKeys],
})
export class TufModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [TufMetadata];
}
