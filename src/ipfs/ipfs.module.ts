import { Module } from '@nestjs/common';
import { AuthModule } from '#src/auth/auth.module.js';
import { DeviceModule } from '#src/device/device.module.js';
import { FirmwareModule } from '#src/firmware/firmware.module.js';
import { RolloutModule } from '#src/rollout/rollout.module.js';
import { FirmwareDownloadRepository } from './firmware-download.repository.js';
import { FirmwareDownloadService } from './firmware-download.service.js';
import { IpfsController } from './ipfs.controller.js';
import { TufModule } from '#src/tuf/tuf.module.js';
import { TufController } from './tuf.controller.js';

/**
 * The IPFS download server (`IPFS_URL`): firmware binaries by CID, the record of who downloaded
 * what, and the signed update metadata (TUF) of each tenant's firmware per device type.
 */
@Module({
  imports: [AuthModule, DeviceModule, FirmwareModule, TufModule, RolloutModule],
  controllers: [IpfsController, TufController],
  providers: [FirmwareDownloadRepository, FirmwareDownloadService],
  exports: [FirmwareDownloadRepository],
})
export class IpfsModule {}
