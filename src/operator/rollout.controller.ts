import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { RolloutPlanService } from '#src/rollout/rollout-plan.service.js';
import type { Tenant } from '#src/tenant/tenant.entity.js';
import { pageOf } from './dto/paging.dto.js';
import { CreateRolloutDto, RolloutListQuery, RolloutPage, RolloutResponse, rolloutResponse } from './dto/rollout.dto.js';
import { IdParamPipe } from './id-param.pipe.js';
import { TenantPipe } from './tenant.pipe.js';
import { OperatorTokenGuard } from './operator-token.guard.js';

/** 409 text of a refused lifecycle action, as `RolloutPlanService.apply` words it. */
const REFUSED = '`Rollout 1 cannot go from <current state> to <target state>`, e.g. `Rollout 1 cannot go from active to active`';

/**
 * Rollouts of a tenant on the operator API (CONTRACT.md §8, §9): plan, list, get with progress,
 * and the lifecycle `draft → active ⇄ paused → finished` (cancelled from any unfinished state),
 * through `RolloutPlanService`, the same as `firmledger rollout …`. A rollout finishes by itself
 * once every targeted device has reported success.
 */
@ApiTags('rollouts')
@ApiBearerAuth('operatorToken')
@ApiUnauthorizedResponse({ description: '`{"message":"Operator token is not valid"}`' })
@ApiNotFoundResponse({ description: '`Tenant "x" not found`; `Rollout not found` (also another tenant\'s)' })
@ApiParam({ name: 'tenant', description: 'tenant id (digits) or name', example: 'acme' })
@Controller('tenants/:tenant/rollouts')
@UseGuards(OperatorTokenGuard)
export class OperatorRolloutController {
  constructor(private readonly rollouts: RolloutPlanService) {}

  /**
   * `POST /tenants/:tenant/rollouts` {name, firmware_id, group, priority?, start_date, downgrade?}
   * → 201 {@link RolloutResponse} in state `draft`; 400 naming the field; 404 unknown tenant,
   * `Firmware not found`, `Group "x" not found`.
   */
  @Post()
  @ApiOperation({ summary: 'Plan a rollout of a firmware to a device group (state draft)' })
  @ApiCreatedResponse({ description: 'planned', type: RolloutResponse })
  @ApiBadRequestResponse({ description: 'a field named, e.g. `start_date is required`' })
  @ApiNotFoundResponse({ description: '`Firmware not found`; `Group "x" not found`; `Tenant "x" not found`' })
  async create(@Param('tenant', TenantPipe) tenant: Tenant, @Body() body: CreateRolloutDto): Promise<RolloutResponse> {
    const tenantId = tenant.id;
    const created = await this.rollouts.create({
      tenantId,
      name: body.name,
      firmwareId: body.firmware_id,
      group: body.group,
      priority: body.priority,
      startDate: body.start_date,
      downgrade: body.downgrade,
    });
    return rolloutResponse(created);
  }

  /** `GET /tenants/:tenant/rollouts?page=&per_page=&status=` → 200 {@link RolloutPage}, oldest first. */
  @Get()
  @ApiOperation({ summary: "List the tenant's rollouts with progress (paged, optionally of one status)" })
  @ApiOkResponse({ type: RolloutPage })
  @ApiBadRequestResponse({ description: 'bad paging or status, e.g. `status must be one of draft, active, paused, finished, cancelled`' })
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: RolloutListQuery): Promise<RolloutPage> {
    const tenantId = tenant.id;
    const { items, total } = await this.rollouts.page(tenantId, { status: query.status, offset: query.offset, limit: query.per_page });
    return pageOf(items.map(rolloutResponse), total, query);
  }

  /** `GET /tenants/:tenant/rollouts/:id` → 200 {@link RolloutResponse} with progress; 404 `Rollout not found`. */
  @Get(':id')
  @ApiOperation({ summary: 'Get a rollout with its progress: targeted, updated, pending, last activity' })
  @ApiParam({ name: 'id', description: 'rollout id', example: 1 })
  @ApiOkResponse({ type: RolloutResponse })
  @ApiBadRequestResponse({ description: '`id must be a whole number`' })
  async get(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<RolloutResponse> {
    return rolloutResponse(await this.rollouts.get(tenant.id, id));
  }

  /** `POST /tenants/:tenant/rollouts/:id/start`: draft → active. 200 the rollout; 409 from any other state. */
  @Post(':id/start')
  @HttpCode(200)
  @ApiOperation({ summary: 'Start a draft rollout (draft → active): devices are offered it once its start date has passed' })
  @ApiParam({ name: 'id', description: 'rollout id', example: 1 })
  @ApiOkResponse({ description: 'started', type: RolloutResponse })
  @ApiBadRequestResponse({ description: '`id must be a whole number`' })
  @ApiConflictResponse({ description: REFUSED })
  start(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<RolloutResponse> {
    return this.apply(tenant, id, 'start');
  }

  /** `POST /tenants/:tenant/rollouts/:id/pause`: active → paused. 200 the rollout; 409 from any other state. */
  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pause an active rollout (active → paused): devices are no longer offered it' })
  @ApiParam({ name: 'id', description: 'rollout id', example: 1 })
  @ApiOkResponse({ description: 'paused', type: RolloutResponse })
  @ApiBadRequestResponse({ description: '`id must be a whole number`' })
  @ApiConflictResponse({ description: REFUSED })
  pause(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<RolloutResponse> {
    return this.apply(tenant, id, 'pause');
  }

  /** `POST /tenants/:tenant/rollouts/:id/resume`: paused → active. 200 the rollout; 409 from any other state. */
  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume a paused rollout (paused → active)' })
  @ApiParam({ name: 'id', description: 'rollout id', example: 1 })
  @ApiOkResponse({ description: 'resumed', type: RolloutResponse })
  @ApiBadRequestResponse({ description: '`id must be a whole number`' })
  @ApiConflictResponse({ description: REFUSED })
  resume(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<RolloutResponse> {
    return this.apply(tenant, id, 'resume');
  }

  /** `POST /tenants/:tenant/rollouts/:id/cancel`: draft, active or paused → cancelled. 200 the rollout; 409 when finished or cancelled. */
  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a rollout that is not finished (draft, active or paused → cancelled); final' })
  @ApiParam({ name: 'id', description: 'rollout id', example: 1 })
  @ApiOkResponse({ description: 'cancelled', type: RolloutResponse })
  @ApiBadRequestResponse({ description: '`id must be a whole number`' })
  @ApiConflictResponse({ description: REFUSED })
  cancel(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<RolloutResponse> {
    return this.apply(tenant, id, 'cancel');
  }

  private async apply(tenant: Tenant, id: number, action: 'start' | 'pause' | 'resume' | 'cancel'): Promise<RolloutResponse> {
    return rolloutResponse(await this.rollouts.apply(tenant.id, id, action));
  }
}
