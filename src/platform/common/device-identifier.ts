import { canonicalMac } from './mac.js';

/**
 * Device identifiers (docs/decisions.md §11): within its tenant a device is named by one
 * identifier, its hardware address for devices of the asvin interface and its controller id for
 * hawkBit DDI devices. Both live in the same column, so groups, rollouts, lists and reports take
 * either.
 */

/** Longest identifier, characters: hawkBit's `Target.CONTROLLER_ID_MAX_SIZE`. */
export const IDENTIFIER_MAX_LENGTH = 256;

/**
 * Longest path parameter the router matches, characters as sent: an identifier of
 * {@link IDENTIFIER_MAX_LENGTH} even with every character percent-encoded (`%40` for `@`), so a
 * controller id of any allowed length reaches its route (fastify's default, 100, answered 414),
 * and one that is too long gets the route's 400 naming the parameter. Longer segments are 414.
 */
export const PATH_PARAM_MAX_LENGTH = 3 * IDENTIFIER_MAX_LENGTH;

/**
 * A controller id: 1 to 256 characters (hawkBit's `JpaTarget.controllerId`: `@Size(min = 1, max =
 * 256)`, `@Pattern("[\\S]*")`, no whitespace), further kept to what an update client can paste
 * into a URL path unencoded (SWUpdate builds `{url}/{tenant}/controller/v1/{id}` with `asprintf`
 * and splits its `-u` option on blanks): the characters RFC 3986 allows in a path segment without
 * percent-encoding (`pchar` less `pct-encoded`): letters, digits and `-._~!$&'()*+,;=:@`.
 */
const CONTROLLER_ID = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]{1,256}$/;

/** 400 text of a path parameter or member that is neither a hardware address nor a controller id. */
export const INVALID_IDENTIFIER =
  'device must be a hardware address (EUI-48 or EUI-64, e.g. AC:67:B2:01:02:03) or a controller id ' +
  "(1 to 256 letters, digits or -._~!$&'()*+,;=:@)";

/** 400 text of a controller id that is not one, naming the field or parameter that held it. */
export const controllerIdMessage = (field: string): string =>
  `${field} must be 1 to 256 letters, digits or -._~!$&'()*+,;=:@ (no spaces, no /, ?, # or %)`;

/** 400 text of a `controller_id` body field that is not a controller id. */
export const INVALID_CONTROLLER_ID = controllerIdMessage('controller_id');

/** Whether text is a controller id (see {@link CONTROLLER_ID}). */
export function isControllerId(text: unknown): text is string {
  return typeof text === 'string' && CONTROLLER_ID.test(text);
}

/**
 * The stored identifier a text names: a hardware address in any accepted notation is its
 * canonical mac (`ac-67-b2-01-02-03` → `AC:67:B2:01:02:03`, docs/decisions.md §6), whichever
 * protocol the device speaks; any other controller id is itself, case and all.
 * @returns the identifier, or `null` when the text is neither.
 */
export function canonicalIdentifier(text: string): string | null {
  return canonicalMac(text) ?? (CONTROLLER_ID.test(text) ? text : null);
}
