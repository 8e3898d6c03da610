import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { DeviceRepository } from './device.repository.js';
import { DeviceService } from './device.service.js';
import { DeviceVersionReports } from './device-version-reports.js';
import { LastSeenWriter } from './last-seen-writer.js';
import { Device, DeviceLabel } from './device.entity.js';
import { DeviceChanges } from './device-changes.js';
import { DeviceLabelService } from './device-labels.service.js';

/** The devices of each tenant: register, delete, read, last-seen times, reported versions (docs/decisions.md §6) and labels (§10.3). */
@Module({
  imports: [LedgerModule],
  providers: [DeviceRepository, DeviceService, LastSeenWriter, DeviceVersionReports, DeviceChanges, DeviceLabelService],
  exports: [DeviceService, DeviceVersionReports, DeviceChanges, DeviceLabelService],
})
export class DeviceRegistryModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [Device, DeviceLabel];
}
