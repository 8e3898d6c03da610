import { rollbackWire } from '#src/domain/rollout/policy/rollback.js';
import type { Counted } from '#src/platform/common/paging.js';
import { criterionWire } from '#src/domain/rollout/policy/abort.js';
import type { LedgerEntryView, VerifyResult } from '#src/domain/ledger/ledger.service.js';
import type { TufCheck } from '#src/domain/tuf/tuf.service.js';
import type { DeviceView, DeviceWithToken } from '#src/domain/device/device.service.js';
import type { DeviceImportResult } from '#src/domain/device-import/device-import.service.js';
import type { DeviceImportResponse } from '#src/operator/dto/device-import.dto.js';
import { formatPollingSleep } from '#src/domain/tenant/ddi-polling.js';
import type { FirmwareView } from '#src/domain/firmware/firmware.service.js';
import type { GroupDetail, GroupView } from '#src/domain/group/group.service.js';
import type {
  DeviceDecision,
  DeviceDetail,
  DeviceRolloutHistory,
  DeviceRolloutView,
  FleetSummary,
} from '#src/domain/rollout/fleet.service.js';
import type { Decision } from '#src/domain/rollout/policy/decision.js';
import type { MenderArtifactInfo } from '#src/domain/firmware/mender-artifact.js';
import type { AuthSetView } from '#src/domain/identity/device-identity.service.js';
import type { AuthSetResponse } from '#src/operator/dto/device-auth.dto.js';
import type { RolloutView } from '#src/domain/rollout/rollout-progress.service.js';
import type { RolloutStatus } from '#src/domain/rollout/rollout.entity.js';
import type { CreatedTenant, DeviceKeyView, TenantView } from '#src/domain/tenant/tenant.service.js';
import type { DeviceKeyResponse } from '#src/operator/dto/device-key.dto.js';
import type { FirmwareResponse, MenderArtifactResponse } from '#src/operator/dto/firmware.dto.js';
import type {
  DeviceDetailResponse,
  DeviceRolloutResponse,
  DeviceSummaryResponse,
  DeviceWithTokenResponse,
  FleetSummaryResponse,
} from '#src/operator/dto/fleet.dto.js';
import type { GroupDetailResponse, GroupResponse } from '#src/operator/dto/group.dto.js';
import type { LedgerEntryResponse, LedgerVerifyResponse } from '#src/operator/dto/ledger.dto.js';
import { pageOf, type Page, type PageQuery } from '#src/operator/dto/paging.dto.js';
import type {
  DecisionResponse,
  DeviceDecisionsResponse,
  DeviceRolloutStateResponse,
  RolloutDeviceResponse,
} from '#src/operator/dto/rollout-device.dto.js';
import type { OperatorRolloutResponse } from '#src/operator/dto/rollout.dto.js';
import type { RolloutDeviceRow } from '#src/domain/rollout/device-state.repository.js';
import type { TenantResponse, TenantWithKeyResponse } from '#src/operator/dto/tenant.dto.js';

/*
 * Every answer shape of the operator API, built here from the services' views: one function per
 * shape, snake_case field names, times as ISO 8601 UTC text. Controllers (and the CLI's `--json`)
 * call these and never write a response object themselves.
 */

/** A service's rows as the page answer of `query`, each mapped to its response shape. */
export function pageAnswer<V, R>(counted: Counted<V>, query: PageQuery, map: (view: V) => R): Page<R> {
  return pageOf(counted.items.map(map), counted.total, query);
}

/** A tenant as the API answers it (no customer key). */
export function tenantResponse(view: TenantView): TenantResponse {
  return {
    id: view.id,
    name: view.name,
    created_at: view.createdAt,
    ddi_polling_sleep: formatPollingSleep(view.ddiPollingSeconds),
    artifact_verify_key_fingerprint: view.artifactVerifyKeyFingerprint,
  };
}

/** A tenant with its customer key: only when the key is created or rotated. */
export function tenantWithKeyResponse(view: CreatedTenant): TenantWithKeyResponse {
  return { ...tenantResponse(view), customer_key: view.customerKey };
}

/** A device key of a tenant. */
export function deviceKeyResponse(view: DeviceKeyView): DeviceKeyResponse {
  return {
    id: view.id,
    key: view.key,
    device_type: view.deviceType,
    single_device: view.singleDevice,
    auto_accept: view.autoAccept,
    ddi_gateway: view.ddiGateway,
    revoked: view.revoked,
    created_at: view.createdAt,
  };
}

/** The wire shape of a firmware view. */
/** A published firmware: digests, CID, size in bytes. */
export function firmwareResponse(view: FirmwareView): FirmwareResponse {
  return {
    id: view.id,
    version: view.version,
    device_type: view.deviceType,
    size: view.size,
    md5: view.md5,
    sha256: view.sha256,
    cid: view.cid,
    created_at: view.createdAt,
    filename: view.filename,
    mender_artifact: view.menderArtifact === null ? null : menderArtifactResponse(view.menderArtifact),
    rollback_target: view.rollbackTarget,
  };
}

/** What a Mender artifact's header says. */
export function menderArtifactResponse(info: MenderArtifactInfo): MenderArtifactResponse {
  return {
    artifact_name: info.artifactName,
    artifact_group: info.artifactGroup,
    device_types_compatible: info.deviceTypesCompatible,
    provides: info.provides,
    payload_types: info.payloadTypes,
    signed: info.signed,
    verified_with: info.verifiedWith,
  };
}

/** An auth set of a Mender device (docs/decisions.md §13). */
export function authSetResponse(view: AuthSetView): AuthSetResponse {
  return {
    id: view.id,
    identifier: view.identifier,
    id_data: view.idData,
    fingerprint: view.fingerprint,
    key_type: view.keyType,
    public_key: view.publicKey,
    status: view.status,
    device_type: view.deviceType,
    device_key_id: view.deviceKeyId,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}

/** A device as the device list shows it. */
export function deviceSummaryResponse(view: DeviceView): DeviceSummaryResponse {
  return {
    mac: view.mac,
    name: view.name,
    firmware_version: view.firmwareVersion,
    device_type: view.deviceType,
    last_seen_at: view.lastSeenAt,
    created_at: view.createdAt,
    protocol: view.protocol,
    has_target_token: view.hasTargetToken,
    attributes: view.attributes,
  };
}

/** A device just created or whose target token was just replaced, with the token (shown only here). */
export function deviceWithTokenResponse(created: DeviceWithToken): DeviceWithTokenResponse {
  return { ...deviceSummaryResponse(created.device), target_token: created.targetToken };
}

/** A rollout that targets a device, with the device's success report for it. */
function deviceRolloutResponse(view: DeviceRolloutView): DeviceRolloutResponse {
  return {
    id: view.id,
    name: view.name,
    status: view.status,
    group: view.group,
    firmware_id: view.firmwareId,
    version: view.version,
    succeeded: view.succeeded,
    reported_at: view.reportedAt,
    reported_version: view.reportedVersion,
    state: view.state,
    wave: view.wave,
  };
}

/** A device with its groups and the rollouts that target it. */
export function deviceDetailResponse(detail: DeviceDetail): DeviceDetailResponse {
  return {
    ...deviceSummaryResponse(detail),
    groups: detail.groups,
    labels: detail.labels,
    rollouts: detail.rollouts.map(deviceRolloutResponse),
  };
}

/** The fleet summary: device counts, seen lately, per firmware version and device type. */
export function fleetSummaryResponse(summary: FleetSummary): FleetSummaryResponse {
  return {
    devices: summary.devices,
    seen_last_hour: summary.seenLastHour,
    seen_last_day: summary.seenLastDay,
    versions: summary.versions.map((v) => ({
      firmware_version: v.firmwareVersion,
      device_type: v.deviceType,
      devices: v.devices,
      seen_last_day: v.seenLastDay,
    })),
    versions_total: summary.versionsTotal,
    at: summary.at,
  };
}

/** A group with its member count. */
export function groupResponse(view: GroupView): GroupResponse {
  return { id: view.id, name: view.name, members: view.members, filter: view.filter, created_at: view.createdAt };
}

/** A group with one page (of `query`) of its members. */
export function groupDetailResponse(detail: GroupDetail, query: PageQuery): GroupDetailResponse {
  const members = detail.memberMacs;
  return { ...groupResponse(detail), member_macs: { ...pageAnswer(members, query, (member) => member), next: members.next } };
}

/** The outcome of checking the ledger's hash chain, tree, checkpoints and cosignatures, and the TUF metadata. */
export function ledgerVerifyResponse(result: VerifyResult, tuf: TufCheck): LedgerVerifyResponse {
  return {
    ok: result.ok && !tuf.firstBreak,
    entries: result.entries,
    head: result.head,
    first_break: result.firstBreak ?? null,
    checkpoints: result.checkpoints,
    cosignatures: result.cosignatures,
    tuf: {
      ok: !tuf.firstBreak,
      repositories: tuf.repositories,
      files: tuf.files,
      expired: tuf.expired,
      first_break: tuf.firstBreak ?? null,
    },
  };
}

/** A ledger entry with its hashes. */
export function ledgerEntryResponse(entry: LedgerEntryView): LedgerEntryResponse {
  return {
    seq: entry.seq,
    tenant_id: entry.tenantId,
    type: entry.type,
    subject: entry.subject,
    payload: entry.payload,
    created_at: entry.createdAt,
    actor: entry.actor,
    prev_hash: entry.prevHash,
    hash: entry.hash,
  };
}

/** A rollout with its progress. */
export function rolloutResponse(view: RolloutView): OperatorRolloutResponse {
  return {
    id: view.id,
    name: view.name,
    status: view.status as RolloutStatus,
    firmware_id: view.firmwareId,
    group_id: view.groupId,
    priority: view.priority,
    start_date: view.startDate,
    downgrade: view.downgrade,
    offer_when: view.offerWhen,
    targeted: view.targeted,
    confirmed: view.confirmed,
    unsettled: view.unsettled,
    skipped: view.skipped,
    not_applicable: view.notApplicable,
    not_registered: view.notRegistered,
    updated: view.updated,
    pending: view.pending,
    last_activity_at: view.lastActivity,
    devices: { ...view.devices },
    waves: view.waves.map((wave) => ({
      wave: wave.wave,
      bound: wave.bound,
      status: wave.status,
      started_at: wave.startedAt,
      devices: { ...wave.devices },
    })),
    current_wave: view.currentWave,
    success_threshold: view.successThreshold,
    error_threshold: view.errorThreshold,
    approval: view.approval,
    awaiting_approval: view.awaitingApproval,
    pause_reason: view.pauseReason,
    ddi_action_type: view.ddiActionType,
    windows: view.windows.map((w) => ({ cron: w.cron, duration_seconds: w.durationSeconds, time_zone: w.timeZone })),
    window_open: view.windowOpen,
    next_window_at: view.nextWindowAt,
    window_closes_at: view.windowClosesAt,
    ramp:
      view.ramp === null
        ? null
        : {
            base_per_minute: view.ramp.basePerMinute,
            increment_factor: view.ramp.incrementFactor,
            increment_every: { [view.ramp.incrementEvery.criterion]: view.ramp.incrementEvery.count },
            maximum_per_minute: view.ramp.maximumPerMinute,
          },
    abort_criteria: view.abortCriteria.map(criterionWire),
    timeouts: { ...view.timeouts },
    rollback: view.rollback === null ? null : rollbackWire(view.rollback),
    rollback_rollout_id: view.rollbackRolloutId,
    rollback_of: view.rollbackOf,
  };
}

/** Wire shape of a device's state in a rollout. */
export function deviceRolloutStateResponse(row: DeviceRolloutHistory): DeviceRolloutStateResponse {
  return {
    rollout_id: row.rolloutId,
    rollout_name: row.rolloutName,
    rollout_status: row.rolloutStatus,
    version: row.version,
    wave: row.state.wave,
    state: row.state.state,
    attempts: row.state.attempts,
    failure_message: row.state.failureMessage,
    reported_version: row.state.reportedVersion,
    updated_at: new Date(row.state.updatedAt).toISOString(),
    history: row.history.map((t) => ({ state: t.state, at: new Date(t.at).toISOString(), message: t.message })),
    deployment_log: row.log === null ? null : { received_at: new Date(row.log.receivedAt).toISOString(), messages: row.log.lines },
  };
}

/** Wire shape of a row of a rollout's device list. */
export function rolloutDeviceResponse(row: RolloutDeviceRow & { decision: Decision }): RolloutDeviceResponse {
  return {
    mac: row.mac,
    name: row.name,
    wave: row.wave,
    state: row.state,
    attempts: row.attempts,
    updated_at: new Date(row.updatedAt).toISOString(),
    failure_message: row.failureMessage,
    decision: decisionResponse(row.decision),
  };
}

/** Wire shape of a decision (policy/decision.ts): its kind, reason and end of a wait as ISO 8601 UTC. */
export function decisionResponse(decision: Decision): DecisionResponse {
  return { kind: decision.kind, reason: decision.reason, until: decision.until === null ? null : new Date(decision.until).toISOString() };
}

/** Wire shape of a device's decisions (`GET /tenants/:tenant/devices/:mac/decisions`). */
export function deviceDecisionsResponse(decisions: readonly DeviceDecision[]): DeviceDecisionsResponse {
  return {
    items: decisions.map((d) => ({ rollout_id: d.rolloutId, rollout_name: d.rolloutName, ...decisionResponse(d.decision) })),
  };
}

/** The answer of a bulk device import. */
export function deviceImportResponse(result: DeviceImportResult): DeviceImportResponse {
  return {
    rows: result.rows,
    created: result.created,
    skipped: result.skipped,
    skipped_devices: result.skippedDevices,
    sha256: result.sha256,
  };
}
