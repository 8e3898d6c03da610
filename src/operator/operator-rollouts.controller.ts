import { applyDecorators, Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { FIRMWARE_NOT_FOUND } from '#src/domain/firmware/firmware.service.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { RolloutPlanService } from '#src/domain/rollout/rollout-plan.service.js';
import { RolloutProgressService } from '#src/domain/rollout/rollout-progress.service.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { CreateRolloutDto, RolloutDeviceQuery, RolloutFieldMessages, RolloutListQuery } from '#src/operator/dto/rollout-plan.dto.js';
import { OperatorRolloutResponse, RetryResponse, RolloutPage } from '#src/operator/dto/rollout.dto.js';
import { RolloutDevicePage } from '#src/operator/dto/rollout-device.dto.js';
import { DEVICE_STATES } from '#src/domain/rollout/policy/device-states.js';
import { IdParamPipe } from './id-param.pipe.js';
import { ApiIdParam, ApiListQueryErrors, ApiOperatorChange, ApiTenantNotFound, ApiTenantParam, OperatorExamples } from './operator-docs.js';
import { TenantPipe } from './tenant.pipe.js';
import { INVALID_OPERATOR_TOKEN, OperatorActor, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { pageAnswer, rolloutDeviceResponse, rolloutResponse } from './operator-responses.js';
import { sliceOf } from '#src/operator/dto/paging.dto.js';

/** 404 of an operation on one rollout (another tenant's rollout is not found either). */
const ApiRolloutNotFound = (): MethodDecorator =>
  ApiTenantNotFound('the tenant has no rollout with this id', OperatorExamples.rolloutNotFound);

/**
 * The documents of a lifecycle action on one rollout (`RolloutPlanService.apply`): 200 with the rollout
 * after it; 404 for an unknown tenant or rollout; 409 when the rollout's state does not allow it,
 * worded `Rollout <id> cannot go from <current state> to <target state>`; 403 for a viewer.
 * @param summary what the action does.
 * @param ok the 200's description.
 * @param refused example 409 texts.
 */
const ApiLifecycleAction = (summary: string, ok: string, ...refused: [string, ...string[]]): MethodDecorator =>
  applyDecorators(
    ApiOperation({ summary }),
    ApiIdParam('Rollout id.'),
    ApiOkResponse({ description: ok, type: OperatorRolloutResponse }),
    ApiRolloutNotFound(),
    ApiMessageResponse(409, 'The rollout’s current state does not allow this action.', refused),
    ApiOperatorChange(),
  );

/**
 * Rollouts of a tenant on the operator API (docs/decisions.md §8, §9): plan, list, get with progress,
 * and the lifecycle `draft → active ⇄ paused → finished` (cancelled from any unfinished state),
 * through `RolloutPlanService`, the same as `firmledger rollout …`. A rollout finishes by itself
 * once every target is confirmed, failed or fell back (docs/decisions.md §10).
 */
@ApiTags('Rollouts')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@ApiTenantParam()
@Controller('tenants/:tenant/rollouts')
@UseGuards(OperatorTokenGuard)
export class OperatorRolloutsController {
  constructor(
    private readonly rollouts: RolloutPlanService,
    private readonly progress: RolloutProgressService,
  ) {}

  /**
   * `POST /tenants/:tenant/rollouts` {name, firmware_id, group, priority?, start_date, downgrade?, offer_when?, waves?, …,
   * windows?, ramp?}
   * → 201 {@link OperatorRolloutResponse} in state `draft`; 400 naming the field; 404 unknown tenant,
   * `Firmware not found`, `Group "x" not found`.
   */
  @Post()
  @ApiOperation({ summary: 'Plan a rollout of a firmware to a device group (state draft)' })
  @ApiCreatedResponse({ description: 'Planned, in state `draft`.', type: OperatorRolloutResponse })
  @ApiJsonBodyErrors([
    RolloutFieldMessages.nameRequired,
    RolloutFieldMessages.firmwareIdWhole,
    RolloutFieldMessages.groupRequired,
    RolloutFieldMessages.priority.max,
    RolloutFieldMessages.startDateUtc,
    RolloutFieldMessages.downgradeBoolean,
    RolloutFieldMessages.offerWhen,
    'wave 2 ("abc") is neither a share like "10%" nor a whole number of devices like 50',
    RolloutFieldMessages.successThreshold,
    RolloutFieldMessages.approval,
    RolloutFieldMessages.ddiActionType,
    'windows[0].time_zone must be an IANA time zone, such as "Europe/Berlin" or "UTC"',
    'ramp.base_per_minute must be a whole number from 1 to 1000',
  ])
  @ApiTenantNotFound('the tenant has no such firmware or group', FIRMWARE_NOT_FOUND, OperatorExamples.groupNotFound)
  @ApiOperatorChange()
  async create(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Body() body: CreateRolloutDto,
    @OperatorActor() actor: Actor,
  ): Promise<OperatorRolloutResponse> {
    const tenantId = tenant.id;
    const created = await this.rollouts.create({
      tenantId,
      name: body.name,
      firmwareId: body.firmware_id,
      group: body.group,
      priority: body.priority,
      startDate: body.start_date,
      downgrade: body.downgrade,
      offerWhen: body.offer_when,
      waves: body.waves,
      successThreshold: body.success_threshold,
      errorThreshold: body.error_threshold,
      approval: body.approval,
      ddiActionType: body.ddi_action_type,
      windows: body.windows,
      ramp: body.ramp,
      abortCriteria: body.abort_criteria,
      timeouts: body.timeouts,
      rollback: body.rollback,
      actor,
    });
    return rolloutResponse(created);
  }

  /** `GET /tenants/:tenant/rollouts?page=&per_page=&status=` → 200 {@link RolloutPage}, oldest first. */
  @Get()
  @ApiOperation({ summary: "List the tenant's rollouts with progress (paged, optionally of one status)" })
  @ApiOkResponse({ type: RolloutPage, description: 'One page of rollouts, oldest first.' })
  @ApiListQueryErrors(RolloutFieldMessages.status)
  @ApiTenantNotFound()
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: RolloutListQuery): Promise<RolloutPage> {
    return pageAnswer(await this.progress.page(tenant.id, query.status, sliceOf(query)), query, rolloutResponse);
  }

  /** `GET /tenants/:tenant/rollouts/:id` → 200 {@link OperatorRolloutResponse} with progress; 404 `Rollout not found`. */
  @Get(':id')
  @ApiOperation({ summary: 'Get a rollout with its progress: targeted, updated, pending, last activity' })
  @ApiIdParam('Rollout id.')
  @ApiOkResponse({ type: OperatorRolloutResponse, description: 'The rollout with its progress.' })
  @ApiRolloutNotFound()
  async get(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<OperatorRolloutResponse> {
    return rolloutResponse(await this.progress.get(tenant.id, id));
  }

  /** `POST /tenants/:tenant/rollouts/:id/start`: draft → active. 200 the rollout; 409 from any other state. */
  @Post(':id/start')
  @HttpCode(200)
  @ApiLifecycleAction(
    'Start a draft rollout (draft → active): devices are offered it once its start date has passed',
    'The started rollout.',
    'Rollout 1 cannot go from active to active',
    'Rollout 1 cannot go from finished to active',
  )
  start(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<OperatorRolloutResponse> {
    return this.apply(tenant, id, 'start', actor);
  }

  /** `POST /tenants/:tenant/rollouts/:id/pause`: active → paused. 200 the rollout; 409 from any other state. */
  @Post(':id/pause')
  @HttpCode(200)
  @ApiLifecycleAction(
    'Pause an active rollout (active → paused): devices are no longer offered it',
    'The paused rollout.',
    'Rollout 1 cannot go from draft to paused',
    'Rollout 1 cannot go from paused to paused',
  )
  pause(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<OperatorRolloutResponse> {
    return this.apply(tenant, id, 'pause', actor);
  }

  /** `POST /tenants/:tenant/rollouts/:id/resume`: paused → active. 200 the rollout; 409 from any other state. */
  @Post(':id/resume')
  @HttpCode(200)
  @ApiLifecycleAction(
    'Resume a paused rollout (paused → active)',
    'The resumed rollout.',
    'Rollout 1 cannot go from active to active',
    'Rollout 1 cannot go from cancelled to active',
  )
  resume(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<OperatorRolloutResponse> {
    return this.apply(tenant, id, 'resume', actor);
  }

  /** `POST /tenants/:tenant/rollouts/:id/cancel`: draft, active or paused → cancelled. 200 the rollout; 409 when finished or cancelled. */
  @Post(':id/cancel')
  @HttpCode(200)
  @ApiLifecycleAction(
    'Cancel a rollout that is not finished (draft, active or paused → cancelled); final',
    'The cancelled rollout.',
    'Rollout 1 cannot go from finished to cancelled',
    'Rollout 1 cannot go from cancelled to cancelled',
  )
  cancel(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<OperatorRolloutResponse> {
    return this.apply(tenant, id, 'cancel', actor);
  }

  /**
   * `POST /tenants/:tenant/rollouts/:id/approve`: starts the next wave of a rollout with manual
   * approval whose current wave reached its success threshold. 200 the rollout; 409 when no wave waits.
   */
  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve the next wave of a rollout with manual approval (its current wave reached its success threshold)',
  })
  @ApiIdParam('Rollout id.')
  @ApiOkResponse({ description: 'The rollout, its next wave started.', type: OperatorRolloutResponse })
  @ApiRolloutNotFound()
  @ApiMessageResponse(409, 'No wave of the rollout waits for approval.', 'Rollout 1 has no wave waiting for approval')
  @ApiOperatorChange()
  async approve(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<OperatorRolloutResponse> {
    return rolloutResponse(await this.rollouts.approve(tenant.id, id, actor));
  }

  /**
   * `POST /tenants/:tenant/rollouts/:id/retry`: failed and fell-back devices back to `pending`
   * (offered again). 200 {retried, rollout}; 409 for a draft or cancelled rollout.
   */
  @Post(':id/retry')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Offer a rollout again to its failed and fell-back devices',
    description:
      'They go back to `pending` and are offered the rollout again when they next ask. A finished rollout becomes active ' +
      'again; a paused one stays paused until resumed (docs/decisions.md §10).',
  })
  @ApiIdParam('Rollout id.')
  @ApiOkResponse({ description: 'How many devices were retried, and the rollout.', type: RetryResponse })
  @ApiRolloutNotFound()
  @ApiMessageResponse(409, 'A draft or cancelled rollout has nothing to retry.', 'Rollout 1 is draft: there is nothing to retry')
  @ApiOperatorChange()
  async retry(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<RetryResponse> {
    const { retried, rollout } = await this.rollouts.retry(tenant.id, id, actor);
    return { retried, rollout: rolloutResponse(rollout) };
  }

  /** `GET /tenants/:tenant/rollouts/:id/devices?state=&wave=&page=&per_page=` → 200 one page of its devices' states. */
  @Get(':id/devices')
  @ApiOperation({ summary: "A rollout's devices with their state, wave and attempts (paged, optionally of one state or wave)" })
  @ApiIdParam('Rollout id.')
  @ApiOkResponse({ type: RolloutDevicePage, description: 'One page of devices, by wave then device id.' })
  @ApiListQueryErrors(`state must be one of ${DEVICE_STATES.join(', ')}`)
  @ApiRolloutNotFound()
  async devices(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @Query() query: RolloutDeviceQuery,
  ): Promise<RolloutDevicePage> {
    const page = await this.progress.devices(tenant.id, id, { state: query.state, wave: query.wave }, sliceOf(query));
    return pageAnswer(page, query, rolloutDeviceResponse);
  }

  private async apply(
    tenant: Tenant,
    id: number,
    action: 'start' | 'pause' | 'resume' | 'cancel',
    actor: Actor,
  ): Promise<OperatorRolloutResponse> {
    return rolloutResponse(await this.rollouts.apply(tenant.id, id, action, actor));
  }
}
