import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { DynamicGroups } from './dynamic-groups.js';
import { GroupChanges } from './group-changes.js';
import { GroupRepository } from './group.repository.js';
import { GroupService } from './group.service.js';
import { DeviceGroup, GroupMember } from './device-group.entity.js';

/** Device groups of a tenant and their membership by mac (planned before devices register), static or dynamic (a filter, §10.3). */
@Module({
  imports: [LedgerModule, DeviceRegistryModule],
  providers: [GroupRepository, GroupService, GroupChanges, DynamicGroups],
  exports: [GroupRepository, GroupService, GroupChanges, DynamicGroups],
})
export class GroupModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [DeviceGroup, GroupMember];
}
