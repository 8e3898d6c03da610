import { Module } from '@nestjs/common';
import { LedgerModule } from '#src/domain/ledger/ledger.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { DeviceAuthSet } from './device-auth-set.entity.js';
import { DeviceAuthRepository } from './device-auth.repository.js';
import { DeviceIdentityService } from './device-identity.service.js';

/** Device identities that authenticate with a public key (Mender devices, docs/decisions.md §13): auth sets, their decisions, device tokens. */
@Module({
  imports: [LedgerModule, TenantModule, DeviceRegistryModule],
  providers: [DeviceAuthRepository, DeviceIdentityService],
  exports: [DeviceIdentityService],
})
export class IdentityModule {
  /** The tables this module keeps (the composition root's schema lists every module's). */
  static readonly entities = [DeviceAuthSet];
}
