/**
 * Names for the operator API's answers, as `openapi/operator.json` documents them: every type here
 * is the generated schema (`operator-api.generated.ts`, made from the document at build time), never
 * a shape restated by hand, so the console's types follow the API's.
 */
import {
  pathsTenantsTenantDeviceAuthSetsGetParametersQueryStatusValues,
  pathsTenantsTenantRolloutsGetParametersQueryStatusValues,
  type components,
  type operations,
} from './operator-api.generated';

type Schemas = components['schemas'];

export type Session = Schemas['SessionResponse'];
export type SessionOperator = Schemas['SessionOperator'];
export type Role = SessionOperator['role'];

export type Tenant = Schemas['TenantResponse'];
export type TenantWithKey = Schemas['TenantWithKeyResponse'];
export type DeviceKey = Schemas['DeviceKeyResponse'];

export type Device = Schemas['DeviceSummaryResponse'];
/** A device just created, or whose target token was just replaced: the only answers with the token. */
export type DeviceWithToken = Schemas['DeviceWithTokenResponse'];
export type CreateDevice = Schemas['CreateDeviceDto'];
export type DeviceDetail = Schemas['DeviceDetailResponse'];
/** A rollout that targets a device, and where the device stands in it. */
export type DeviceRollout = Schemas['DeviceRolloutResponse'];
/** `GET tenants/:tenant/devices/:mac/rollouts`: a rollout that targets the device, with the device's history in it. */
export type DeviceRolloutHistory = Schemas['DeviceRolloutStateResponse'];
/** One change of a device's state in a rollout. */
export type StateChange = Schemas['DeviceTransitionResponse'];
export type FleetSummary = Schemas['FleetSummaryResponse'];

export type Firmware = Schemas['FirmwareResponse'];
export type Group = Schemas['GroupResponse'];
export type GroupDetail = Schemas['GroupDetailResponse'];

export type Rollout = Schemas['OperatorRolloutResponse'];
/** The body of `POST /tenants/{tenant}/rollouts`. */
export type RolloutPlan = Schemas['CreateRolloutDto'];
export type RolloutStatus = Rollout['status'];
export type Approval = Rollout['approval'];
/** hawkBit's action types of a rollout for DDI devices (docs/decisions.md §12). */
export type DdiActionType = Rollout['ddi_action_type'];
/** Which targets a rollout offers its firmware to (docs/decisions.md §10.5). */
export type OfferWhen = Rollout['offer_when'];
/** What a rollout does for a device now, and why (docs/decisions.md §10.5). */
export type Decision = Schemas['DecisionResponse'];
/** `POST …/rollouts/:id/retry`. */
export type RetryResult = Schemas['RetryResponse'];
/** A targeted device of a rollout: `GET …/rollouts/:id/devices`. */
export type RolloutDevice = Schemas['RolloutDeviceResponse'];
export type Wave = Schemas['WaveResponse'];
/** A wave's progress: `waiting` (not started), `running` (started, below its success threshold), `passed`. */
export type WaveStatus = Wave['status'];
/** A targeted device's state in one rollout. */
export type DeviceState = RolloutDevice['state'];
/** Devices per state, and how many there are in all (`targeted`). */
export type StateCounts = Schemas['DeviceStateCounts'];

/** A Mender device's identity with one public key, and whether it may authenticate (docs/decisions.md §13). */
export type AuthSet = Schemas['AuthSetResponse'];
export type AuthSetStatus = AuthSet['status'];

export type LedgerEntry = Schemas['LedgerEntryResponse'];
export type LedgerVerify = Schemas['LedgerVerifyResponse'];

/** The rollout states the rollout list may be filtered by (`?status=` of `GET /tenants/{tenant}/rollouts`). */
export const ROLLOUT_STATUSES: readonly RolloutStatus[] = pathsTenantsTenantRolloutsGetParametersQueryStatusValues;

/** The states of a Mender device's identity and key, in the document's order. */
export const AUTH_SET_STATUSES: readonly AuthSetStatus[] = pathsTenantsTenantDeviceAuthSetsGetParametersQueryStatusValues;

/** The query parameters of `GET /tenants/{tenant}/devices` (its filters and paging). */
export type DeviceListQuery = NonNullable<operations['OperatorDevicesController_list']['parameters']['query']>;

/** One page of a list answer (`items` of a kind, and `page`, `per_page`, `total` as every page of the API has them). */
export type Page<T> = Omit<Schemas['TenantPage'], 'items'> & { items: T[] };
