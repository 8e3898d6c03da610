import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  Validate,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { parseUtc } from '#src/platform/common/clock.js';
import { OptionalField, wholeNumberMessages, WholeNumberQueryField } from '#src/platform/common/dto-fields.js';
import { DEFAULT_SUCCESS_THRESHOLD, MAX_PRIORITY } from '#src/domain/rollout/rollout-plan.service.js';
import {
  DDI_ACTION_TYPES,
  ROLLOUT_APPROVALS,
  ROLLOUT_STATUSES,
  type DdiActionType,
  type RolloutApproval,
  type RolloutStatus,
} from '#src/domain/rollout/rollout.entity.js';
import { DEVICE_STATES, type DeviceState } from '#src/domain/rollout/policy/device-states.js';
import { OFFER_WHEN, type OfferWhen } from '#src/domain/rollout/policy/decision.js';
import { MAX_WAVES, parseWavePlan } from '#src/domain/rollout/policy/waves.js';
import { MAX_WINDOW_SECONDS, MAX_WINDOWS, parseWindows } from '#src/domain/rollout/policy/windows.js';
import { parseRamp } from '#src/domain/rollout/policy/ramp.js';
import {
  ABORT_ACTIONS,
  ABORT_FAILURES,
  MAX_ABORT_CRITERIA,
  MAX_MIN_FINISHED,
  parseAbortCriteria,
  type AbortAction,
  type AbortFailure,
} from '#src/domain/rollout/policy/abort.js';
import { parseTimeouts, TIMEOUT_LIMITS } from '#src/domain/rollout/policy/timeouts.js';
import { MAX_ROLLBACK_COUNT, parseRollback, ROLLBACK_SCOPES, type RollbackScope } from '#src/domain/rollout/policy/rollback.js';
import { PageQuery } from './paging.dto.js';

/** 400 texts of the rollout body's and list query's fields (the message names the field). */
export const RolloutFieldMessages = {
  nameRequired: 'name is required',
  nameString: 'name must be a string',
  nameLength: 'name must be 1 to 128 characters',
  firmwareIdRequired: 'firmware_id is required',
  firmwareIdWhole: 'firmware_id must be a whole number',
  firmwareIdMin: 'firmware_id must be at least 1',
  groupRequired: 'group is required',
  groupString: 'group must be a group id or name',
  groupLength: 'group must be 1 to 128 characters',
  priority: wholeNumberMessages('priority', MAX_PRIORITY),
  startDateRequired: 'start_date is required',
  startDateString: 'start_date must be a string "YYYY-MM-DD HH:MM:SS" (UTC)',
  startDateUtc: 'start_date must be a real UTC date and time "YYYY-MM-DD HH:MM:SS"',
  downgradeBoolean: 'downgrade must be true or false',
  offerWhen: `offer_when must be one of ${OFFER_WHEN.join(', ')}`,
  wavesList: 'waves must be a list of wave bounds, such as ["10%", "100%"]',
  successThreshold: 'success_threshold must be a share from 0 to 1',
  errorThreshold: 'error_threshold must be a share from 0 to 1, or null',
  approval: `approval must be one of ${ROLLOUT_APPROVALS.join(', ')}`,
  ddiActionType: `ddi_action_type must be one of ${DDI_ACTION_TYPES.join(', ')}`,
  status: `status must be one of ${ROLLOUT_STATUSES.join(', ')}`,
  windowsList: `windows must be a list of at most ${MAX_WINDOWS} maintenance windows`,
  ramp: 'ramp must be an object {base_per_minute, increment_factor, increment_every, maximum_per_minute}',
  abortCriteria: `abort_criteria must be a list of at most ${MAX_ABORT_CRITERIA} criteria`,
  timeouts: 'timeouts must be an object {offered?, downloading?, installed?} of seconds',
} as const;

/** A wave plan as the one reader of wave plans takes it ({@link parseWavePlan}); its message says what is wrong. */
@ValidatorConstraint({ name: 'wavePlan' })
class WavePlan implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return Array.isArray(value) && 'bounds' in parseWavePlan(value);
  }
  defaultMessage(args: ValidationArguments): string {
    const plan = Array.isArray(args.value) ? parseWavePlan(args.value) : undefined;
    return plan && 'error' in plan ? plan.error.message : RolloutFieldMessages.wavesList;
  }
}

/** Maintenance windows as the one reader of windows takes them ({@link parseWindows}); its message names the window's field. */
@ValidatorConstraint({ name: 'maintenanceWindows' })
class MaintenanceWindows implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return 'windows' in parseWindows(value);
  }
  defaultMessage(args: ValidationArguments): string {
    const parsed = parseWindows(args.value);
    return 'error' in parsed ? parsed.error.message : RolloutFieldMessages.windowsList;
  }
}

/** A ramp as the one reader of ramps takes it ({@link parseRamp}); its message names the ramp's field. */
@ValidatorConstraint({ name: 'rampPlan' })
class Ramp implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value === null || 'ramp' in parseRamp(value);
  }
  defaultMessage(args: ValidationArguments): string {
    const parsed = parseRamp(args.value);
    return 'error' in parsed ? parsed.error.message : RolloutFieldMessages.ramp;
  }
}

/** Abort criteria as the one reader of them takes them ({@link parseAbortCriteria}); its message names the criterion's field. */
@ValidatorConstraint({ name: 'abortCriteria' })
class AbortCriteria implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return 'criteria' in parseAbortCriteria(value);
  }
  defaultMessage(args: ValidationArguments): string {
    const parsed = parseAbortCriteria(args.value);
    return 'error' in parsed ? parsed.error.message : RolloutFieldMessages.abortCriteria;
  }
}

/** Timeouts as the one reader of them takes them ({@link parseTimeouts}); its message names the timeout. */
@ValidatorConstraint({ name: 'rolloutTimeouts' })
class Timeouts implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value === null || 'timeouts' in parseTimeouts(value);
  }
  defaultMessage(args: ValidationArguments): string {
    const parsed = parseTimeouts(args.value);
    return 'error' in parsed ? parsed.error.message : RolloutFieldMessages.timeouts;
  }
}

/** An abort criterion (AWS IoT Jobs' abort config; docs/decisions.md §10.2). */
export class AbortCriterionDto {
  @ApiProperty({
    description: 'the failures it counts: one state, or `all` (failed, fell back and timed out)',
    enum: ABORT_FAILURES,
    example: 'failed',
  })
  failure: AbortFailure;

  @ApiProperty({
    description: 'share of the finished devices (confirmed, failed, fell back, timed out) in percent, above 0, at which it fires',
    example: 10,
    exclusiveMinimum: true,
    minimum: 0,
    maximum: 100,
  })
  threshold_percentage: number;

  @ApiProperty({ description: 'it is judged only once this many devices finished', example: 20, minimum: 1, maximum: MAX_MIN_FINISHED })
  min_finished: number;

  @ApiProperty({ description: 'what the rollout does when it fires', enum: ABORT_ACTIONS, example: 'pause' })
  action: AbortAction;
}

/** A rollback policy as the one reader of it takes it ({@link parseRollback}); its message names the field. */
@ValidatorConstraint({ name: 'rollbackPolicy' })
class Rollback implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value === null || 'policy' in parseRollback(value);
  }
  defaultMessage(args: ValidationArguments): string {
    const parsed = parseRollback(args.value);
    return 'error' in parsed ? parsed.error.message : 'rollback must be an object {firmware_id, failed_count, failed_percentage, scope}';
  }
}

/** A rollback policy (Azure Device Update's cloud-initiated rollback; docs/decisions.md §10.4). */
export class RollbackPolicyDto {
  @ApiProperty({
    description: 'the firmware to go back to: the tenant’s, of the rollout’s device type, marked as a rollback target',
    example: 3,
  })
  firmware_id: number;

  @ApiProperty({
    description: 'fires once this many devices failed, fell back or timed out; null: no count trigger',
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: MAX_ROLLBACK_COUNT,
    example: null,
  })
  failed_count: number | null;

  @ApiProperty({
    description:
      'fires once that share of the targeted devices (percent, above 0, at most 100) failed, fell back or timed out; null: no share trigger',
    type: Number,
    nullable: true,
    example: 5,
  })
  failed_percentage: number | null;

  @ApiProperty({
    description:
      '`failed`: the devices that failed, fell back or timed out are rolled back; `all`: also those that installed or confirmed it',
    enum: ROLLBACK_SCOPES,
    example: 'failed',
  })
  scope: RollbackScope;
}

/** Timeouts of a rollout per device state, seconds (docs/decisions.md §10.2). */
export class TimeoutsDto {
  @ApiPropertyOptional({
    description: 'longest a device stays offered (told about the rollout, not downloading yet) before it is timed_out',
    type: Number,
    nullable: true,
    minimum: TIMEOUT_LIMITS.min,
    maximum: TIMEOUT_LIMITS.max,
    example: 3600,
  })
  offered?: number | null;

  @ApiPropertyOptional({
    description: 'longest a device stays downloading before it is timed_out',
    type: Number,
    nullable: true,
    minimum: TIMEOUT_LIMITS.min,
    maximum: TIMEOUT_LIMITS.max,
    example: null,
  })
  downloading?: number | null;

  @ApiPropertyOptional({
    description:
      'longest a device stays installed (success reported, target version not seen) before it is timed_out; ' +
      'null: the server’s ROLLOUT_CONFIRMATION_WINDOW_SECONDS, after which it is failed',
    type: Number,
    nullable: true,
    minimum: TIMEOUT_LIMITS.min,
    maximum: TIMEOUT_LIMITS.max,
    example: 1800,
  })
  installed?: number | null;
}

/** A maintenance window (docs/decisions.md §10.1). */
export class MaintenanceWindowDto {
  @ApiProperty({
    description: '5-field cron expression (minute hour day-of-month month day-of-week) naming when the window opens',
    example: '0 2 * * *',
  })
  cron: string;

  @ApiProperty({ description: 'how long it stays open each time, seconds', example: 10800, minimum: 1, maximum: MAX_WINDOW_SECONDS })
  duration_seconds: number;

  @ApiProperty({ description: 'IANA time zone the cron expression is read in', example: 'Europe/Berlin' })
  time_zone: string;
}

/** `increment_every` of a ramp: exactly one of the two. */
export class RampIncrementDto {
  @ApiPropertyOptional({ description: 'the rate increases each time this many more devices were offered the rollout', example: 100 })
  offered?: number;

  @ApiPropertyOptional({ description: 'the rate increases each time this many more devices confirmed the rollout', example: 100 })
  confirmed?: number;
}

/** A ramp of new offers (AWS IoT Jobs' exponential rollout; docs/decisions.md §10.1). */
export class RampDto {
  @ApiProperty({ description: 'new offers a minute at first', example: 10, minimum: 1, maximum: 1000 })
  base_per_minute: number;

  @ApiProperty({ description: 'factor the rate is multiplied by at each increment', example: 2, minimum: 1.1, maximum: 5 })
  increment_factor: number;

  @ApiProperty({ type: RampIncrementDto, description: '`{"offered": N}` or `{"confirmed": N}`', example: { confirmed: 100 } })
  increment_every: RampIncrementDto;

  @ApiProperty({ description: 'most new offers a minute, at least base_per_minute', example: 1000, minimum: 1, maximum: 1000 })
  maximum_per_minute: number;
}

@ValidatorConstraint({ name: 'utcDateTime' })
class UtcDateTime implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && parseUtc(value) !== null;
  }
  defaultMessage(): string {
    return RolloutFieldMessages.startDateUtc;
  }
}

/**
 * Body of `POST /tenants/:tenant/rollouts` (docs/decisions.md §8, §9): a rollout is planned in state
 * `draft`. class-validator checks the lowest decorator of a field first and stops at the first failure.
 */
export class CreateRolloutDto {
  @ApiProperty({ description: 'rollout name, 1 to 128 characters (devices see it as rollout_name)', example: '1.2.0 to field test' })
  @Length(1, 128, { message: RolloutFieldMessages.nameLength })
  @IsString({ message: RolloutFieldMessages.nameString })
  @IsDefined({ message: RolloutFieldMessages.nameRequired })
  name: string;

  @ApiProperty({ description: "id of the tenant's firmware to roll out", example: 1, minimum: 1 })
  @Min(1, { message: RolloutFieldMessages.firmwareIdMin })
  @IsInt({ message: RolloutFieldMessages.firmwareIdWhole })
  @IsDefined({ message: RolloutFieldMessages.firmwareIdRequired })
  firmware_id: number;

  @ApiProperty({ description: 'target device group: its id or its name (a JSON number is read as the id)', example: 'field-test' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'number' && Number.isInteger(value) ? String(value) : value))
  @Length(1, 128, { message: RolloutFieldMessages.groupLength })
  @IsString({ message: RolloutFieldMessages.groupString })
  @IsDefined({ message: RolloutFieldMessages.groupRequired })
  group: string;

  @ApiPropertyOptional({
    description: 'whole number, 1 is most urgent (docs/decisions.md §8)',
    example: 1,
    default: 1,
    minimum: 1,
    maximum: MAX_PRIORITY,
  })
  @OptionalField()
  @Max(MAX_PRIORITY, { message: RolloutFieldMessages.priority.max })
  @Min(1, { message: RolloutFieldMessages.priority.min })
  @IsInt({ message: RolloutFieldMessages.priority.whole })
  priority: number = 1;

  @ApiProperty({
    description: 'when devices may start getting it: `YYYY-MM-DD HH:MM:SS`, UTC (docs/device-interface.md, docs/decisions.md §8)',
    example: '2026-12-01 08:00:00',
    pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
  })
  @Validate(UtcDateTime)
  @IsString({ message: RolloutFieldMessages.startDateString })
  @IsDefined({ message: RolloutFieldMessages.startDateRequired })
  start_date: string;

  @ApiPropertyOptional({ description: 'offer it even to devices whose version orders after its version', example: false, default: false })
  @OptionalField()
  @IsBoolean({ message: RolloutFieldMessages.downgradeBoolean })
  downgrade: boolean = false;

  @ApiPropertyOptional({
    description:
      'which targets are offered the firmware (docs/decisions.md §10.5): `newer`, only devices whose version orders before ' +
      'its version (anti-rollback; a device on a later version is skipped and not waited for); `different`, every device ' +
      'not already running its version, as Mender and hawkBit do: for artifact names that do not order as versions',
    enum: OFFER_WHEN,
    example: 'newer',
    default: 'newer',
  })
  @OptionalField()
  @IsIn(OFFER_WHEN, { message: RolloutFieldMessages.offerWhen })
  offer_when: OfferWhen = 'newer';

  @ApiPropertyOptional({
    description:
      'cumulative wave bounds in the rollout’s stable order of devices (by device id): `"10%"` is the first 10 % of the ' +
      'devices targeted at start (rounded up), a whole number the first that many devices. The last wave also takes the ' +
      'rest and every device that joins the group later. Default one wave, `["100%"]` (docs/decisions.md §10).',
    type: 'array',
    items: {
      oneOf: [
        { type: 'string', pattern: '^\\d{1,3}(\\.\\d{1,2})?%$' },
        { type: 'integer', minimum: 1 },
      ],
    },
    minItems: 1,
    maxItems: MAX_WAVES,
    example: ['10%', '30%', '100%'],
  })
  @OptionalField()
  @Validate(WavePlan)
  waves?: (string | number)[];

  @ApiPropertyOptional({
    description: 'confirmed share of a wave, 0 to 1, at which the next wave starts (or may be approved)',
    example: 0.8,
    default: DEFAULT_SUCCESS_THRESHOLD,
    minimum: 0,
    maximum: 1,
  })
  @OptionalField()
  @Max(1, { message: RolloutFieldMessages.successThreshold })
  @Min(0, { message: RolloutFieldMessages.successThreshold })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: RolloutFieldMessages.successThreshold })
  success_threshold?: number;

  @ApiPropertyOptional({
    description: 'failed and fell-back share of a started wave, 0 to 1, above which the rollout pauses itself; null: never',
    example: 0.2,
    default: null,
    minimum: 0,
    maximum: 1,
    type: Number,
    nullable: true,
  })
  @IsOptional()
  @Max(1, { message: RolloutFieldMessages.errorThreshold })
  @Min(0, { message: RolloutFieldMessages.errorThreshold })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: RolloutFieldMessages.errorThreshold })
  error_threshold?: number | null;

  @ApiPropertyOptional({
    description:
      '`auto`: the next wave starts by itself once the current one reached its success threshold; `manual`: after an operator approves it',
    enum: ROLLOUT_APPROVALS,
    default: 'auto',
    example: 'auto',
  })
  @OptionalField()
  @IsIn(ROLLOUT_APPROVALS, { message: RolloutFieldMessages.approval })
  approval?: RolloutApproval;

  @ApiPropertyOptional({
    description:
      'how hawkBit DDI devices are told to take it (docs/decisions.md §12): `forced` (install at once), `soft` (DDI ' +
      '`attempt`: the device may postpone), `download-only` (DDI update `skip`: download, do not install)',
    enum: DDI_ACTION_TYPES,
    default: 'forced',
    example: 'forced',
  })
  @OptionalField()
  @IsIn(DDI_ACTION_TYPES, { message: RolloutFieldMessages.ddiActionType })
  ddi_action_type?: DdiActionType;

  @ApiPropertyOptional({
    description:
      'maintenance windows (docs/decisions.md §10.1): outside every window devices are not offered the installation ' +
      '(hawkBit DDI devices may download it, `update: skip`); none: always open',
    type: [MaintenanceWindowDto],
    maxItems: MAX_WINDOWS,
    example: [{ cron: '0 2 * * *', duration_seconds: 10800, time_zone: 'Europe/Berlin' }],
  })
  @OptionalField()
  @Validate(MaintenanceWindows)
  windows?: unknown[];

  @ApiPropertyOptional({
    description:
      'limits new offers a minute, shared by every instance (docs/decisions.md §10.1); a device asking while the ' +
      'minute’s allowance is spent gets nothing now and it on a later poll. null or absent: no limit',
    type: RampDto,
    nullable: true,
    example: { base_per_minute: 10, increment_factor: 2, increment_every: { confirmed: 100 }, maximum_per_minute: 1000 },
  })
  @IsOptional()
  @Validate(Ramp)
  ramp?: unknown;

  @ApiPropertyOptional({
    description:
      'abort criteria (docs/decisions.md §10.2), judged in order after devices change state: the first whose failures ' +
      'reach threshold_percentage of the finished devices, once min_finished finished, pauses or cancels the rollout; none: never',
    type: [AbortCriterionDto],
    maxItems: MAX_ABORT_CRITERIA,
    example: [{ failure: 'failed', threshold_percentage: 10, min_finished: 20, action: 'pause' }],
  })
  @OptionalField()
  @Validate(AbortCriteria)
  abort_criteria?: unknown[];

  @ApiPropertyOptional({
    description:
      'seconds a device may stay offered, downloading or installed before it is timed_out (docs/decisions.md §10.2), ' +
      `${TIMEOUT_LIMITS.min} to ${TIMEOUT_LIMITS.max} each; absent: none`,
    type: TimeoutsDto,
    example: { offered: 3600, installed: 1800 },
  })
  @IsOptional()
  @Validate(Timeouts)
  timeouts?: unknown;

  @ApiPropertyOptional({
    description:
      'rollback policy (docs/decisions.md §10.4): once failed_count devices, or failed_percentage of the targets, failed, ' +
      'fell back or timed out, the rollout is cancelled and the devices in scope are offered firmware_id (a firmware marked ' +
      'as a rollback target) by a rollout of its own, linked to this one; at least one trigger; scope `failed` unless told',
    type: RollbackPolicyDto,
    example: { firmware_id: 3, failed_percentage: 5, scope: 'failed' },
  })
  @IsOptional()
  @Validate(Rollback)
  rollback?: unknown;
}

/** `?page=&per_page=&status=` of `GET /tenants/:tenant/rollouts`. */
export class RolloutListQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'only rollouts in this state', enum: ROLLOUT_STATUSES, example: 'active' })
  @IsOptional()
  @IsIn(ROLLOUT_STATUSES, { message: RolloutFieldMessages.status })
  status?: RolloutStatus;
}

/** 400 text of a bad `?wave=`: one for each check. */
const WAVE_FILTER = `wave must be a whole number from 1 to ${MAX_WAVES}`;

/** `?page=&per_page=&state=&wave=` of `GET /tenants/:tenant/rollouts/:id/devices`. */
export class RolloutDeviceQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'only devices in this state', enum: DEVICE_STATES, example: 'fell_back' })
  @IsOptional()
  @IsIn(DEVICE_STATES, { message: `state must be one of ${DEVICE_STATES.join(', ')}` })
  state?: DeviceState;

  @ApiPropertyOptional({ description: 'only devices of this wave (1-based)', example: 2, minimum: 1, maximum: MAX_WAVES })
  @IsOptional()
  @WholeNumberQueryField(MAX_WAVES, { whole: WAVE_FILTER, min: WAVE_FILTER, max: WAVE_FILTER })
  wave?: number;
}
