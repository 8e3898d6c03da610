import { ApiProperty } from '@nestjs/swagger';
import { ROLLOUT_STATUSES, type RolloutStatus } from '#src/domain/rollout/rollout.entity.js';
import { DEVICE_STATES, type DeviceState } from '#src/domain/rollout/policy/device-states.js';
import { DECISION_KINDS, type DecisionKind } from '#src/domain/rollout/policy/decision.js';
import { PageOf } from './paging.dto.js';

/**
 * The fields of a device's place in one rollout, documented once for both answers that carry them:
 * a rollout's device list ({@link RolloutDeviceResponse}) and a device's rollouts ({@link DeviceRolloutStateResponse}).
 */
const RolloutDeviceField = {
  wave: () => ApiProperty({ description: 'its wave (1-based)', example: 1 }),
  state: () => ApiProperty({ enum: DEVICE_STATES, example: 'confirmed' }),
  attempts: () => ApiProperty({ description: 'times the rollout was offered to it', example: 1 }),
  updatedAt: () => ApiProperty({ description: 'latest change, ISO 8601 UTC', example: '2026-12-01T09:30:00.000Z' }),
  failureMessage: () =>
    ApiProperty({
      description: 'its failure message, or why it counts as failed or fell back',
      type: String,
      nullable: true,
      example: null,
    }),
};

/** What a rollout does for a device now, and why (policy/decision.ts, docs/decisions.md §10.5). */
export class DecisionResponse {
  @ApiProperty({
    description:
      '`offer`: it is (or is about to be) offered the rollout; `wait`: not now, see `reason` and `until`; `skip`: never ' +
      '(another device type, already runs the version, or anti-rollback), not waited for; `settled`: its attempt is over',
    enum: DECISION_KINDS,
    example: 'wait',
  })
  kind: DecisionKind;

  @ApiProperty({ description: 'why, in words', example: 'outside the maintenance windows' })
  reason: string;

  @ApiProperty({
    description:
      'when the wait ends (a window opens, the start date, the next ramp minute), ISO 8601 UTC; null when not known or not waiting',
    type: String,
    nullable: true,
    example: '2026-12-08T02:00:00.000Z',
  })
  until: string | null;
}

/** A decision of one rollout for a device (`GET /tenants/:tenant/devices/:mac/decisions`). */
export class DeviceDecisionResponse extends DecisionResponse {
  @ApiProperty({ description: 'the rollout', example: 3 })
  rollout_id: number;

  @ApiProperty({ example: '2.0.0 to the field' })
  rollout_name: string;
}

/** Every rollout that is active or paused and names a group of the device, with what it does for the device now. */
export class DeviceDecisionsResponse {
  @ApiProperty({
    type: [DeviceDecisionResponse],
    description: 'by rollout id; empty when no running rollout names a group of the device',
    example: [
      {
        rollout_id: 3,
        rollout_name: '2.0.0 to the field',
        kind: 'wait',
        reason: 'outside the maintenance windows',
        until: '2026-12-08T02:00:00.000Z',
      },
    ],
  })
  items: DeviceDecisionResponse[];
}

/** A targeted device's state in a rollout. */
export class RolloutDeviceResponse {
  @ApiProperty({ description: 'canonical mac', example: 'AC:67:B2:01:02:03' })
  mac: string;

  @ApiProperty({ example: 'sim-1' })
  name: string;

  @RolloutDeviceField.wave() wave: number;

  @RolloutDeviceField.state() state: DeviceState;

  @RolloutDeviceField.attempts() attempts: number;

  @RolloutDeviceField.updatedAt() updated_at: string;

  @RolloutDeviceField.failureMessage() failure_message: string | null;

  @ApiProperty({
    type: DecisionResponse,
    description: 'what the rollout does for it now and why (windows and waves included; the ramp not)',
    example: { kind: 'settled', reason: 'confirmed: runs the new version', until: null },
  })
  decision: DecisionResponse;
}

/** One page of `GET /tenants/:tenant/rollouts/:id/devices`, by wave then device id. */
export class RolloutDevicePage extends PageOf(RolloutDeviceResponse, {
  description: 'devices of this page, by wave then device id',
  example: [
    {
      mac: 'AC:67:B2:01:02:03',
      name: 'sim-1',
      wave: 1,
      state: 'confirmed',
      attempts: 1,
      updated_at: '2026-12-01T09:30:00.000Z',
      failure_message: null,
      decision: { kind: 'settled', reason: 'confirmed: runs the new version', until: null },
    },
  ],
}) {}

/** A change of a device's state in a rollout. */
export class DeviceTransitionResponse {
  @ApiProperty({ enum: DEVICE_STATES, example: 'offered' })
  state: DeviceState;

  @ApiProperty({ description: 'ISO 8601 UTC', example: '2026-12-01T09:30:00.000Z' })
  at: string;

  @ApiProperty({ description: 'failure message, why the server moved it, or `retried`', type: String, nullable: true, example: null })
  message: string | null;
}

/** One line of a deployment log. */
export class DeploymentLogLineResponse {
  @ApiProperty({ description: 'as the device wrote it (RFC 3339)', example: '2026-12-01T09:30:00Z' })
  timestamp: string;

  @ApiProperty({ description: '`debug`, `info`, `warning`, `error`…', example: 'error' })
  level: string;

  @ApiProperty({ example: 'Artifact install failed: Payload: can not install Payload: hello.txt: invalid checksum' })
  message: string;
}

/** The log a device sent about its failed attempt in a rollout (a Mender deployment log, docs/decisions.md §13). */
export class DeploymentLogResponse {
  @ApiProperty({ description: 'when it arrived, ISO 8601 UTC', example: '2026-12-01T09:30:01.000Z' })
  received_at: string;

  @ApiProperty({
    type: [DeploymentLogLineResponse],
    description: 'its lines, oldest first',
    example: [
      { timestamp: '2026-12-01T09:30:00Z', level: 'info', message: 'Running Mender client version: 3.4.0' },
      {
        timestamp: '2026-12-01T09:30:01Z',
        level: 'error',
        message: 'Artifact install failed: Payload: can not install Payload: hello.txt: invalid checksum',
      },
    ],
  })
  messages: DeploymentLogLineResponse[];
}

/** A device's state in one rollout, with its history. */
export class DeviceRolloutStateResponse {
  @ApiProperty({ example: 1 })
  rollout_id: number;

  @ApiProperty({ example: '1.2.0 to field test' })
  rollout_name: string;

  @ApiProperty({ enum: ROLLOUT_STATUSES, example: 'active' })
  rollout_status: RolloutStatus;

  @ApiProperty({ description: 'target version', example: '1.2.0' })
  version: string;

  @RolloutDeviceField.wave() wave: number;

  @RolloutDeviceField.state() state: DeviceState;

  @RolloutDeviceField.attempts() attempts: number;

  @RolloutDeviceField.failureMessage() failure_message: string | null;

  @ApiProperty({ description: 'version of its latest success or failure report', type: String, nullable: true, example: '1.1.0' })
  reported_version: string | null;

  @RolloutDeviceField.updatedAt() updated_at: string;

  @ApiProperty({
    type: [DeviceTransitionResponse],
    description: 'every change, oldest first',
    example: [
      { state: 'pending', at: '2026-12-01T08:00:00.000Z', message: null },
      { state: 'offered', at: '2026-12-01T09:00:00.000Z', message: null },
      { state: 'confirmed', at: '2026-12-01T09:30:00.000Z', message: null },
    ],
  })
  history: DeviceTransitionResponse[];

  @ApiProperty({
    type: DeploymentLogResponse,
    nullable: true,
    description: 'the log it sent about its failed attempt (Mender devices), null when none',
    example: null,
  })
  deployment_log: DeploymentLogResponse | null;
}
