import { Injectable, PipeTransform } from '@nestjs/common';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';

/**
 * Resolves a `:tenant` path parameter (tenant id in digits, or name) with
 * {@link TenantService.resolveTenant}; 404 `Tenant "x" not found` otherwise. The entity stays in
 * the operator layer: controllers pass its id on and never return it.
 */
@Injectable()
export class TenantPipe implements PipeTransform<string, Promise<Tenant>> {
  constructor(private readonly tenants: TenantService) {}

  transform(value: string): Promise<Tenant> {
    return this.tenants.resolveTenant(value);
  }
}

/** As {@link TenantPipe}, for an optional parameter (a `?tenant=` filter): absent stays `undefined`. */
@Injectable()
export class OptionalTenantPipe implements PipeTransform<string | undefined, Promise<Tenant | undefined>> {
  constructor(private readonly tenants: TenantService) {}

  async transform(value: string | undefined): Promise<Tenant | undefined> {
    return value === undefined ? undefined : this.tenants.resolveTenant(value);
  }
}
