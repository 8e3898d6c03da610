import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { TenantRepository } from './tenant.repository.js';
import { TenantService } from './tenant.service.js';

/** Tenants and device keys. */
@Module({
  imports: [LedgerModule],
  providers: [TenantRepository, TenantService],
  exports: [TenantRepository, TenantService],
})
export class TenantModule {}
