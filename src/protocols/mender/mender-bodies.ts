import type { DeploymentLogLine } from '#src/domain/rollout/deployment-log.entity.js';

/**
 * Reading what a Mender client sends (docs/decisions.md §13), in the shapes of Mender's device
 * API (`deviceauth`, `inventory` and `deployments` `docs/devices_api.yml`) and of the 3.4 client.
 * Each reader answers the values the component uses, or the 400 text of what is wrong.
 */

/** An authentication request: `{"id_data": "<JSON text>", "pubkey": "<PEM>", "tenant_token": "…"}`. */
export interface AuthRequestBody {
  idData: string;
  publicKey: string;
  /** `''` when absent (a client configured without one). */
  tenantToken: string;
}

/** The status values of a deployment status report (deployments `DeviceDeploymentStatus`). */
export const DEPLOYMENT_STATUSES = [
  'downloading',
  'pause_before_installing',
  'installing',
  'pause_before_committing',
  'pause_before_rebooting',
  'rebooting',
  'success',
  'failure',
  'already-installed',
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** 400 texts of the component's bodies. */
export const MenderMessages = {
  authRequest: 'Body must be {"id_data": string, "pubkey": string, "tenant_token": string}',
  inventory: 'Body must be an array of {"name": string of 1 to 128 characters, "value": string, number or array of them}',
  deviceProvides: 'device_provides must be an object with artifact_name and device_type strings',
  artifactName: 'artifact_name must be 1 to 64 printable characters',
  status: `status must be one of ${DEPLOYMENT_STATUSES.join(', ')}`,
  log: 'Body must be {"messages": [{"level": string, "message": string, "timestamp": string}, …]}',
} as const;

/** Longest attribute value kept, characters: longer ones are cut (a `kernel` line can be long). */
export const ATTRIBUTE_VALUE_LENGTH = 1024;

/** Longest deployment log message kept, characters. */
const LOG_MESSAGE_LENGTH = 4096;

/** The authentication request body, or its 400 text. */
export function readAuthRequest(body: unknown): AuthRequestBody | { error: string } {
  const object = objectOf(body);
  const idData = object?.['id_data'];
  const publicKey = object?.['pubkey'];
  const tenantToken = object?.['tenant_token'] ?? '';
  if (typeof idData !== 'string' || typeof publicKey !== 'string' || typeof tenantToken !== 'string') {
    return { error: MenderMessages.authRequest };
  }
  return { idData, publicKey, tenantToken: tenantToken.trim() };
}

/**
 * An inventory body, `[{"name", "value"}]`, as attributes: text values as they are, numbers as
 * their decimal text, lists as their JSON text; values cut to {@link ATTRIBUTE_VALUE_LENGTH}. A
 * name sent twice keeps its last value. Or the 400 text.
 */
export function readInventory(body: unknown): Record<string, string> | { error: string } {
  if (!Array.isArray(body)) return { error: MenderMessages.inventory };
  const attributes: Record<string, string> = {};
  for (const item of body) {
    const object = objectOf(item);
    const name = object?.['name'];
    if (typeof name !== 'string' || name.length < 1 || name.length > 128) return { error: MenderMessages.inventory };
    const value = valueText(object?.['value']);
    if (value === null) return { error: MenderMessages.inventory };
    attributes[name] = value.length <= ATTRIBUTE_VALUE_LENGTH ? value : `${value.slice(0, ATTRIBUTE_VALUE_LENGTH - 1)}…`;
  }
  return attributes;
}

/** An attribute value as text, or `null` when it is none of string, number, or a list of them. */
function valueText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) {
    return JSON.stringify(value);
  }
  return null;
}

/** What a device says when it asks for a deployment: the artifact it runs (and its type). */
export interface NextRequest {
  artifactName: string;
  deviceType: string | null;
}

/**
 * The v2 `next` body, `{"device_provides": {"artifact_name", "device_type", …}, "update_control_map"?}`,
 * or the v1 one (the provides themselves), or the v1 query string; or the 400 text.
 */
export function readNextRequest(provides: unknown): NextRequest | { error: string } {
  const object = objectOf(provides);
  if (object === null) return { error: MenderMessages.deviceProvides };
  const artifactName = object['artifact_name'];
  const deviceType = object['device_type'];
  if (typeof artifactName !== 'string') return { error: MenderMessages.deviceProvides };
  if (!isVersionText(artifactName)) return { error: MenderMessages.artifactName };
  return { artifactName, deviceType: typeof deviceType === 'string' ? deviceType : null };
}

/** Whether text may be a device's version: 1 to 64 printable characters (the device table's column). */
export function isVersionText(text: string): boolean {
  return text.length >= 1 && text.length <= 64 && !/\p{Cc}/u.test(text);
}

/** A status report body, `{"status": "…", "substate"?: "…"}`: its status, or the 400 text. */
export function readStatus(body: unknown): DeploymentStatus | { error: string } {
  const status = objectOf(body)?.['status'];
  return typeof status === 'string' && (DEPLOYMENT_STATUSES as readonly string[]).includes(status)
    ? (status as DeploymentStatus)
    : { error: MenderMessages.status };
}

/** A deployment log body, `{"messages": [{"level", "message", "timestamp"}]}`: its lines, or the 400 text. */
export function readLog(body: unknown): DeploymentLogLine[] | { error: string } {
  const messages = objectOf(body)?.['messages'];
  if (!Array.isArray(messages)) return { error: MenderMessages.log };
  const lines: DeploymentLogLine[] = [];
  for (const item of messages) {
    const object = objectOf(item);
    const message = object?.['message'];
    const level = object?.['level'];
    const timestamp = object?.['timestamp'] ?? '';
    if (typeof message !== 'string' || typeof level !== 'string' || typeof timestamp !== 'string') return { error: MenderMessages.log };
    lines.push({
      timestamp: timestamp.slice(0, 64),
      level: level.slice(0, 32),
      message: message.length <= LOG_MESSAGE_LENGTH ? message : `${message.slice(0, LOG_MESSAGE_LENGTH - 1)}…`,
    });
  }
  return lines;
}

function objectOf(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
