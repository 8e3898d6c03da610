/**
 * Confirmations as a scenario of their own: devices that were offered a rollout report their
 * success (`POST /api/device/success/rollout`), then poll next rollout with the new version, which
 * confirms them (docs/decisions.md §10). Both requests settle the rollout (its per-wave counts), so
 * their cost shows whether a report costs the same in a small fleet and in a large one.
 */
import { fleetDevice, type DeviceType } from './fleet.js';
import { measureAmount, type CpuWatch, type LoadResult } from './load.js';
import type { SeededTenant } from './seed.js';

/** A device that was offered a rollout: what its success report and its confirming poll send. */
interface Offered {
  mac: string;
  token: string;
  rolloutId: string;
  version: string;
}

/** What {@link measureConfirmations} measured. */
export interface Confirmations {
  /** Devices that reported and then confirmed (each once). */
  devices: number;
  reports: LoadResult;
  polls: LoadResult;
}

/**
 * Finds up to `wanted` asvin devices of `tenant` that next rollout offers a rollout (asking for each,
 * `connections` at a time, in fleet order), then measures their success reports and,
 * after those, their confirming polls, each device once.
 * @param tokens device tokens per device type (any token of the type serves any device of it).
 * @param options `before` and `after` are called right before the reports start and right after they end (e.g. to
 *   sample the database meanwhile); `failures: 'count'` reports answers that are not 200 (timeouts on an overloaded
 *   machine) in the results instead of throwing; `watch` counts those processes' CPU time per request.
 * @throws Error when a report or a poll is not answered 200 (unless counted), or no device is offered anything.
 */
export async function measureConfirmations(
  vc: string,
  tenant: SeededTenant,
  tokens: Record<DeviceType, string[]>,
  wanted: number,
  connections: number,
  options: { before?(): void; after?(): void; failures?: 'throw' | 'count'; watch?: CpuWatch } = {},
): Promise<Confirmations> {
  const offered = await offeredDevices(vc, tenant, tokens, wanted, connections);
  if (offered.length === 0) throw new Error('no device was offered a rollout');
  const cycle = (request: (device: Offered) => { path: string; body: string; token: string }) => {
    let n = 0;
    // autocannon may ask for a request or two past `amount`: those repeat a device (`Existing Record`).
    return () => {
      const { path, body, token } = request(offered[n++ % offered.length]);
      return { method: 'POST' as const, path, body, headers: { 'x-access-token': token } };
    };
  };
  options.before?.();
  const reports = await measureAmount(
    vc,
    cycle((d) => ({
      path: '/api/device/success/rollout',
      body: JSON.stringify({ mac: d.mac, firmware_version: d.version, rollout_id: d.rolloutId }),
      token: d.token,
    })),
    offered.length,
    connections,
    options.watch,
  );
  options.after?.();
  const polls = await measureAmount(
    vc,
    cycle((d) => ({ path: '/api/device/next/rollout', body: JSON.stringify({ mac: d.mac, firmware_version: d.version }), token: d.token })),
    offered.length,
    connections,
    options.watch,
  );
  const checked =
    options.failures === 'count'
      ? []
      : ([
          ['success report', reports],
          ['confirming poll', polls],
        ] as const);
  for (const [what, result] of checked) {
    if (result.failures > 0) throw new Error(`${what}: ${result.failures} answers were not 200 ${JSON.stringify(result.statuses)}`);
  }
  return { devices: offered.length, reports, polls };
}

/** asvin devices offered a rollout, in fleet order, asking `connections` at a time. */
async function offeredDevices(
  vc: string,
  tenant: SeededTenant,
  tokens: Record<DeviceType, string[]>,
  wanted: number,
  connections: number,
): Promise<Offered[]> {
  const found: Offered[] = [];
  let next = 0;
  const ask = async (): Promise<void> => {
    while (found.length < wanted && next < tenant.devices) {
      const index = next++;
      const device = fleetDevice(index, tenant.macPrefix);
      if (device.protocol !== 'asvin') continue;
      const typeTokens = tokens[device.type];
      const token = typeTokens[index % typeTokens.length];
      const response = await fetch(`${vc}/api/device/next/rollout`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-access-token': token },
        body: JSON.stringify({ mac: device.mac, firmware_version: device.version }),
      });
      const body = (await response.json()) as { rollout_id?: string; version?: string; message?: string };
      if (response.status !== 200) throw new Error(`next rollout answered ${response.status} ${JSON.stringify(body)}`);
      if (body.rollout_id !== undefined && body.version !== undefined && found.length < wanted) {
        found.push({ mac: device.mac, token, rolloutId: body.rollout_id, version: body.version });
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, ask));
  return found;
}
