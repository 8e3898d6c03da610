/**
 * Which devices a rollout targets (docs/decisions.md §10): the one rule, written once as a
 * predicate (for rules and specs) and once as the SQL fragment every statement that reads targets
 * uses (the next-rollout read, the placing of devices at start, the counts, the report checks).
 * The two are kept equal by a spec that runs both over the same table of cases.
 *
 * A device is a target of a rollout when it is
 * - registered in the rollout's tenant,
 * - a member of the rollout's group (by its identifier: the mac), and
 * - of the rollout firmware's device type.
 * Members of the group that are of another device type are "not applicable"; members that are not
 * registered are "not registered": neither is a target, neither is ever waited for. The database
 * keeps the members of each group counted by whether they are registered and their device type
 * (`group_member_count`); {@link classifyMember} classes those counts.
 */

/** What the target rule reads of a device. */
export interface TargetDevice {
  tenantId: number;
  mac: string;
  deviceType: string;
}

/** What the target rule reads of a rollout: its tenant, its group's members and its firmware's device type. */
export interface TargetRollout {
  tenantId: number;
  /** Identifiers (canonical macs) of the members of the rollout's group. */
  members: ReadonlySet<string>;
  /** Device type of the rollout's firmware. */
  deviceType: string;
}

/** Whether `device` is a target of `rollout` (see the module's docstring). */
export function isTarget(device: TargetDevice, rollout: TargetRollout): boolean {
  return device.tenantId === rollout.tenantId && rollout.members.has(device.mac) && device.deviceType === rollout.deviceType;
}

/** What a member of a rollout's group is to the rollout. */
export type MemberClass = 'target' | 'not_applicable' | 'not_registered';

/**
 * What the group member `mac` of `rollout` is: `not_registered` when the rollout's tenant has no
 * device with it, `not_applicable` when that device is of another device type, else `target`.
 * @param device the tenant's device with that mac, `null` when there is none.
 */
export function classifyMember(device: Pick<TargetDevice, 'deviceType'> | null, rollout: Pick<TargetRollout, 'deviceType'>): MemberClass {
  if (device === null) return 'not_registered';
  return device.deviceType === rollout.deviceType ? 'target' : 'not_applicable';
}

/**
 * The target rule as an SQL condition over a `device` row aliased `device` and a `rollout` row
 * aliased `rollout` (both engines): true when the device is a target of the rollout. The device
 * type is checked before the membership: a probe of the small firmware table drops most rollouts
 * of a device. Its subqueries use the aliases `tm` and `tf`, which the caller must not use.
 */
export function targetCondition(device: string, rollout: string): string {
  return (
    `${device}.tenant_id = ${rollout}.tenant_id` +
    ` AND EXISTS (SELECT 1 FROM firmware tf WHERE tf.id = ${rollout}.firmware_id AND tf.device_type = ${device}.device_type)` +
    ` AND EXISTS (SELECT 1 FROM group_member tm WHERE tm.group_id = ${rollout}.group_id AND tm.mac = ${device}.mac)`
  );
}
