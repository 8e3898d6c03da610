import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { TenantRepository } from './tenant.repository.js';
import { TenantService } from './tenant.service.js';
import { Tenant } from './tenant.entity.js';
import { DeviceKey } from './device-key.entity.js';

/** Tenants and device keys. */
@Module({
  imports: [LedgerModule],
  providers: [TenantRepository, TenantService],
  exports: [TenantRepository, TenantService],
})
export class TenantModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [Tenant, DeviceKey];
}
