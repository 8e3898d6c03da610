/**
 * The benchmark's fleet, as pure data: which devices exist, what they run, which groups they are
 * in and which rollouts target them. Deterministic, so every run (and both SQLite drivers) sees
 * the same database.
 */

/** Device types and their share of the fleet (tenths): ESP32 50 %, ESP8266 30 %, Pycom 20 %. */
export const DEVICE_TYPES = ['ESP32', 'ESP8266', 'PYCOM'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** Firmware published for every device type. */
export const FIRMWARE_VERSIONS = ['1.0.0', '1.1.0', '1.2.0', '2.0.0'] as const;

/**
 * One device in {@link DDI_SHARE} speaks hawkBit DDI (docs/decisions.md §11, §12), the others the
 * asvin interface. 7 shares no factor with the type split (10), the waves (2), the regions (4), the
 * beta ring (20) or the versions (8), so the DDI devices are spread evenly over every type, version,
 * group and rollout.
 */
export const DDI_SHARE = 7;

/** The protocol a device of the fleet speaks (the `device.protocol` column). */
export type FleetProtocol = 'asvin' | 'ddi';

/** The protocol of the `index`-th device of a fleet (cheap: the load generator asks it per request). */
export function fleetProtocol(index: number): FleetProtocol {
  return index % DDI_SHARE === DDI_SHARE - 1 ? 'ddi' : 'asvin';
}

/** A device of the fleet. */
export interface FleetDevice {
  /**
   * Canonical mac (docs/decisions.md §6); a DDI device's controller id is its mac, as a hawkBit
   * client named by its hardware address sends it.
   */
  mac: string;
  name: string;
  type: DeviceType;
  /** What the device runs, and what it reports in next-rollout requests. */
  version: string;
  /** asvin devices take part in the asvin scenarios, DDI devices in the DDI poll. */
  protocol: FleetProtocol;
}

/**
 * The `index`-th device of a fleet. `prefix` is the first three mac octets (`02:B0:00`: locally
 * administered), so two fleets never share a mac.
 */
export function fleetDevice(index: number, prefix = '02:B0:00'): FleetDevice {
  const hex = index.toString(16).toUpperCase().padStart(6, '0');
  const mac = `${prefix}:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}`;
  const tenth = index % 10;
  const type: DeviceType = tenth < 5 ? 'ESP32' : tenth < 8 ? 'ESP8266' : 'PYCOM';
  // Most devices are behind; a few run the newest firmware already.
  const version = ['1.0.0', '1.0.0', '1.1.0', '1.2.0', '1.0.0', '1.1.0', '1.0.0', '2.0.0'][index % 8];
  const site = ['Halle', 'Lager', 'Dach', 'Keller', 'Hof'][index % 5];
  const name = index % 97 === 0 ? `Pumpe ${index} Kühlhaus Süd` : `sensor-${index} ${site} ${index % 13}`;
  return { mac, name, type, version, protocol: fleetProtocol(index) };
}

/** A device group: its name and which device indexes belong to it. */
export interface FleetGroup {
  name: string;
  includes(index: number): boolean;
}

/** Groups of the large fleet: two waves, four regions, a beta ring and everyone. */
export const GROUPS: readonly FleetGroup[] = [
  { name: 'wave-a', includes: (i) => i % 2 === 0 },
  { name: 'wave-b', includes: (i) => i % 2 === 1 },
  { name: 'region-0', includes: (i) => i % 4 === 0 },
  { name: 'region-1', includes: (i) => i % 4 === 1 },
  { name: 'region-2', includes: (i) => i % 4 === 2 },
  { name: 'region-3', includes: (i) => i % 4 === 3 },
  { name: 'beta', includes: (i) => i % 20 === 0 },
  { name: 'everyone', includes: () => true },
];

/** A rollout plan of the fleet. */
export interface FleetRollout {
  name: string;
  type: DeviceType;
  version: string;
  group: string;
  priority: number;
  downgrade?: boolean;
  /** Lifecycle after creation: `active` (started), `paused` or `draft`. */
  state: 'active' | 'paused' | 'draft';
}

/**
 * Ten active rollouts over all device types and several groups, plus a paused and a draft one
 * that the status filter must skip.
 */
export const ROLLOUTS: readonly FleetRollout[] = [
  { name: 'esp32 1.1.0 wave a', type: 'ESP32', version: '1.1.0', group: 'wave-a', priority: 5, state: 'active' },
  { name: 'esp32 1.2.0 beta', type: 'ESP32', version: '1.2.0', group: 'beta', priority: 1, state: 'active' },
  { name: 'esp32 2.0.0 region 0', type: 'ESP32', version: '2.0.0', group: 'region-0', priority: 3, state: 'active' },
  {
    name: 'esp32 back to 1.0.0 region 3',
    type: 'ESP32',
    version: '1.0.0',
    group: 'region-3',
    priority: 9,
    downgrade: true,
    state: 'active',
  },
  { name: 'esp8266 1.1.0 everyone', type: 'ESP8266', version: '1.1.0', group: 'everyone', priority: 5, state: 'active' },
  { name: 'esp8266 1.2.0 wave b', type: 'ESP8266', version: '1.2.0', group: 'wave-b', priority: 4, state: 'active' },
  { name: 'esp8266 2.0.0 beta', type: 'ESP8266', version: '2.0.0', group: 'beta', priority: 2, state: 'active' },
  { name: 'pycom 1.1.0 everyone', type: 'PYCOM', version: '1.1.0', group: 'everyone', priority: 5, state: 'active' },
  { name: 'pycom 1.2.0 region 1', type: 'PYCOM', version: '1.2.0', group: 'region-1', priority: 3, state: 'active' },
  { name: 'pycom 2.0.0 region 2', type: 'PYCOM', version: '2.0.0', group: 'region-2', priority: 2, state: 'active' },
  { name: 'esp32 2.0.0 everyone (paused)', type: 'ESP32', version: '2.0.0', group: 'everyone', priority: 1, state: 'paused' },
  { name: 'pycom 2.0.0 everyone (draft)', type: 'PYCOM', version: '2.0.0', group: 'everyone', priority: 1, state: 'draft' },
];

/**
 * Yields `(device key index, timestamp)` pairs, each once: timestamps around `nowSeconds` within
 * `±spreadSeconds`, over `keys` device keys (a pair logs in once, docs/decisions.md §4).
 * @throws Error when every pair has been used.
 */
export function* loginPairs(keys: number, nowSeconds: number, spreadSeconds: number): Generator<{ key: number; timestamp: number }> {
  for (let offset = 0; offset <= 2 * spreadSeconds; offset++) {
    const timestamp = nowSeconds - spreadSeconds + offset;
    for (let key = 0; key < keys; key++) yield { key, timestamp };
  }
  throw new Error(`all ${keys * (2 * spreadSeconds + 1)} login pairs are used up`);
}

/** The benchmark's `--devices N` (underscores and commas allowed); `undefined` without it (the default fleet). */
export function devicesArgument(): number | undefined {
  const index = process.argv.indexOf('--devices');
  if (index < 0) return undefined;
  const value = Number((process.argv[index + 1] ?? '').replace(/[_,]/g, ''));
  if (!Number.isSafeInteger(value) || value < 1_000) throw new Error('--devices takes a whole number of at least 1000');
  return value;
}
