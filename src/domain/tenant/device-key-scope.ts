/**
 * The tenant and device key a device speaks with: what a valid device credential (an asvin device
 * token, a DDI gateway token, a Mender tenant token) establishes (docs/decisions.md §5).
 */
export interface DeviceKeyScope {
  tenantId: number;
  deviceKeyId: number;
  /** `dType` of the device key: the type of every device registered with it. */
  deviceType: string;
}
