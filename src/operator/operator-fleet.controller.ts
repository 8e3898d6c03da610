import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { FleetService } from '#src/domain/rollout/fleet.service.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { FleetSummaryResponse } from '#src/operator/dto/fleet.dto.js';
import { ApiTenantNotFound, ApiTenantParam } from './operator-docs.js';
import { INVALID_OPERATOR_TOKEN, OperatorTokenGuard } from './operator-token.guard.js';
import { TenantPipe } from './tenant.pipe.js';
import { fleetSummaryResponse } from './operator-responses.js';

/** A tenant's fleet at a glance under `OPERATOR_URL` (docs/decisions.md §9): what the console's overview shows. */
@ApiTags('Devices')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@ApiTenantParam()
@UseGuards(OperatorTokenGuard)
@Controller('tenants/:tenant/fleet')
export class OperatorFleetController {
  constructor(private readonly fleet: FleetService) {}

  /** `GET /tenants/:tenant/fleet` → 200 devices, devices seen in the last hour and day, devices per firmware version and type; 404. */
  @Get()
  @ApiOperation({
    summary: 'The fleet at a glance: devices, devices seen in the last hour and day, devices per firmware version and device type',
  })
  @ApiOkResponse({ type: FleetSummaryResponse, description: 'Counts as of `at`.' })
  @ApiTenantNotFound()
  async summary(@Param('tenant', TenantPipe) tenant: Tenant): Promise<FleetSummaryResponse> {
    return fleetSummaryResponse(await this.fleet.summary(tenant.id));
  }
}
