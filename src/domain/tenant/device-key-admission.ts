/** What the admission rule needs of a device key row. */
export interface AdmissibleKey {
  tenantId: number;
  /** Epoch milliseconds of the revocation, `null` while the key is valid. */
  revokedAt: number | null;
}

/**
 * The one rule of whether a device key still admits the requests of a device token issued for
 * `tenantId` (docs/decisions.md §3, §4, §5): the key exists, is not revoked, and belongs to that
 * tenant. Used by the device token guard ({@link DeviceTokenService.verify}) and by the
 * next-rollout path, which reads the key in its own statement. A refusal is 401 `JWT is not valid`.
 */
export function admitDeviceKey<K extends AdmissibleKey>(key: K | null | undefined, tenantId: number): key is K {
  return key !== null && key !== undefined && key.revokedAt === null && key.tenantId === tenantId;
}
