import { Module } from '@nestjs/common';
import { AuthModule } from '#src/protocols/asvin/auth/auth.module.js';
import { DeliveryModule } from '#src/domain/delivery/delivery.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { IpfsController } from './ipfs.controller.js';
import { TufModule } from '#src/domain/tuf/tuf.module.js';
import { TufController } from './tuf.controller.js';

/**
 * The IPFS download server (`IPFS_URL`): firmware binaries by CID, the record of who downloaded
 * what, and the signed update metadata (TUF) of each tenant's firmware per device type.
 */
@Module({
  imports: [AuthModule, DeliveryModule, FirmwareModule, TufModule],
  controllers: [IpfsController, TufController],
})
export class IpfsModule {}
