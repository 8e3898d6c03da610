import { Module } from '@nestjs/common';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { FirmwareModule } from '#src/domain/firmware/firmware.module.js';
import { RolloutEngineModule } from '#src/domain/rollout/rollout-engine.module.js';
import { FirmwareDownloadRepository } from './firmware-download.repository.js';
import { FirmwareDownloadService } from './firmware-download.service.js';
import { FirmwareDownload } from './firmware-download.entity.js';
import { DownloadLinks } from './download-links.js';

/**
 * Firmware delivery: the bytes of a firmware to a device, with `Range` and validators, and the
 * record of who downloaded what (which moves the device to `downloading`, docs/decisions.md §10).
 * Every device protocol's download route answers through it; signed links serve devices that
 * download without a credential (Mender).
 */
@Module({
  imports: [DeviceRegistryModule, FirmwareModule, RolloutEngineModule],
  providers: [FirmwareDownloadRepository, FirmwareDownloadService, DownloadLinks],
  exports: [FirmwareDownloadRepository, FirmwareDownloadService, DownloadLinks],
})
export class DeliveryModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [FirmwareDownload];
}
