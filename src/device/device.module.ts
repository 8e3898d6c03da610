import { Module } from '@nestjs/common';
import { AuthModule } from '#src/auth/auth.module.js';
import { LedgerModule } from '#src/ledger/ledger.module.js';
import { DeviceController } from './device.controller.js';
import { DeviceRepository } from './device.repository.js';
import { DeviceService } from './device.service.js';
import { DeviceVersionReports } from './device-version-reports.js';
import { LastSeenWriter } from './last-seen-writer.js';

/** Register, delete, get and list devices (docs/decisions.md §6). */
@Module({
  imports: [AuthModule, LedgerModule],
  controllers: [DeviceController],
  providers: [DeviceRepository, DeviceService, LastSeenWriter, DeviceVersionReports],
  exports: [DeviceService, DeviceVersionReports],
})
export class DeviceModule {}
