import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { GroupRepository } from './group.repository.js';
import { GroupService } from './group.service.js';

/** Device groups of a tenant and their membership by mac (planned before devices register). */
@Module({
  imports: [LedgerModule],
  providers: [GroupRepository, GroupService],
  exports: [GroupRepository, GroupService],
})
export class GroupModule {}
