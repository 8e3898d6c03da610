import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  Validate,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { parseUtc } from '#src/common/clock.js';
import { OptionalField } from '#src/common/dto-fields.js';
import { MAX_PRIORITY } from '#src/rollout/rollout-plan.service.js';
import { ROLLOUT_STATUSES, type RolloutStatus } from '#src/rollout/rollout.entity.js';
import { PageOf, PageQuery } from './paging.dto.js';

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
  priorityWhole: 'priority must be a whole number',
  priorityMin: 'priority must be at least 1',
  priorityMax: `priority must be at most ${MAX_PRIORITY}`,
  startDateRequired: 'start_date is required',
  startDateString: 'start_date must be a string "YYYY-MM-DD HH:MM:SS" (UTC)',
  startDateUtc: 'start_date must be a real UTC date and time "YYYY-MM-DD HH:MM:SS"',
  downgradeBoolean: 'downgrade must be true or false',
  status: `status must be one of ${ROLLOUT_STATUSES.join(', ')}`,
} as const;

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
 * Body of `POST /tenants/:tenant/rollouts` (CONTRACT.md §8, §9): a rollout is planned in state
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
    description: 'whole number, 1 is most urgent (CONTRACT.md §8)',
    example: 1,
    default: 1,
    minimum: 1,
    maximum: MAX_PRIORITY,
  })
  @OptionalField()
  @Max(MAX_PRIORITY, { message: RolloutFieldMessages.priorityMax })
  @Min(1, { message: RolloutFieldMessages.priorityMin })
  @IsInt({ message: RolloutFieldMessages.priorityWhole })
  priority: number = 1;

  @ApiProperty({
    description: 'when devices may start getting it: `YYYY-MM-DD HH:MM:SS`, UTC (INTERFACE.md, CONTRACT.md §8)',
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
}

/** `?page=&per_page=&status=` of `GET /tenants/:tenant/rollouts`. */
export class RolloutListQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'only rollouts in this state', enum: ROLLOUT_STATUSES, example: 'active' })
  @IsOptional()
  @IsIn(ROLLOUT_STATUSES, { message: RolloutFieldMessages.status })
  status?: RolloutStatus;
}

/** A rollout with its progress (CONTRACT.md §9). */
export class RolloutResponse {
  @ApiProperty({ description: 'rollout id (the rollout_id devices see)', example: 1 })
  id: number;

  @ApiProperty({ description: 'rollout name', example: '1.2.0 to field test' })
  name: string;

  @ApiProperty({
    description: 'lifecycle state: draft → active ⇄ paused → finished; cancelled from any unfinished state',
    enum: ROLLOUT_STATUSES,
    example: 'active',
  })
  status: RolloutStatus;

  @ApiProperty({ description: 'firmware it rolls out', example: 1 })
  firmware_id: number;

  @ApiProperty({ description: 'device group it targets', example: 1 })
  group_id: number;

  @ApiProperty({ description: '1 is most urgent', example: 1 })
  priority: number;

  @ApiProperty({ description: '`YYYY-MM-DD HH:MM:SS`, UTC', example: '2026-12-01 08:00:00' })
  start_date: string;

  @ApiProperty({ description: 'offered even to devices whose version orders after its version', example: false })
  downgrade: boolean;

  @ApiProperty({ description: 'devices targeted: members of the group', example: 100 })
  targeted: number;

  @ApiProperty({ description: 'targeted devices that have reported success', example: 40 })
  updated: number;

  @ApiProperty({ description: 'targeted devices that have not reported success yet', example: 60 })
  pending: number;

  @ApiProperty({
    description: 'time of the latest success report, ISO 8601 UTC; null before the first',
    example: '2026-12-01T09:30:00.000Z',
    type: String,
    nullable: true,
  })
  last_activity_at: string | null;
}

const ROLLOUT_EXAMPLE: RolloutResponse = {
  id: 1,
  name: '1.2.0 to field test',
  status: 'active',
  firmware_id: 1,
  group_id: 1,
  priority: 1,
  start_date: '2026-12-01 08:00:00',
  downgrade: false,
  targeted: 100,
  updated: 40,
  pending: 60,
  last_activity_at: '2026-12-01T09:30:00.000Z',
};

/** One page of `GET /tenants/:tenant/rollouts`, oldest first. */
export class RolloutPage extends PageOf(RolloutResponse, { description: 'rollouts of this page, by id', example: [ROLLOUT_EXAMPLE] }) {}
