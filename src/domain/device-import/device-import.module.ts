import { Module } from '@nestjs/common';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { GroupModule } from '#src/domain/group/group.module.js';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { DeviceImportService } from './device-import.service.js';

/** Bulk device import from CSV or NDJSON (docs/decisions.md §14); it keeps no tables of its own. */
@Module({
  imports: [DeviceRegistryModule, GroupModule, LedgerModule],
  providers: [DeviceImportService],
  exports: [DeviceImportService],
})
export class DeviceImportModule {}
