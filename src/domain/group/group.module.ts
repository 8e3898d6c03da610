import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { GroupChanges } from './group-changes.js';
import { GroupRepository } from './group.repository.js';
import { GroupService } from './group.service.js';
import { DeviceGroup, GroupMember } from './device-group.entity.js';

/** Device groups of a tenant and their membership by mac (planned before devices register). */
@Module({
  imports: [LedgerModule],
  providers: [GroupRepository, GroupService, GroupChanges],
  exports: [GroupRepository, GroupService, GroupChanges],
})
export class GroupModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [DeviceGroup, GroupMember];
}
