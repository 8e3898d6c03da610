import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { LedgerEntry } from '#src/domain/ledger/ledger-entry.entity.js';
import { Subject } from '#src/domain/ledger/ledger.service.js';
import { insertDevices } from './devices.js';
import { post, request, type Answer, type TestApp, type TestTenant } from './harness.js';

/** A rollout as the operator API answers it (the fields the rollout specs read). */
export interface RolloutBody {
  id: number;
  status: string;
  targeted: number;
  confirmed: number;
  unsettled: number;
  not_applicable: number;
  not_registered: number;
  /** Deprecated: `confirmed`. */
  updated: number;
  /** Deprecated: `unsettled`. */
  pending: number;
  devices: Record<string, number>;
  waves: { wave: number; bound: string; status: string; started_at: string | null; devices: Record<string, number> }[];
  current_wave: number;
  awaiting_approval: boolean;
  pause_reason: string | null;
}

/** A device's state in one rollout, as `GET …/devices/:mac/rollouts` answers it. */
export interface DeviceRolloutBody {
  rollout_id: number;
  state: string;
  wave: number;
  attempts: number;
  failure_message: string | null;
  reported_version: string | null;
  history: { state: string; at: string; message: string | null }[];
}

/** A tenant with a device token, a group `fleet` of `macs` and its own firmware (`firmwareId`, `cid`) to roll out. */
export interface Fleet {
  tenant: TestTenant;
  token: string;
  macs: string[];
  firmwareId: number;
  cid: string;
}

/** The fleet setup and the requests the rollout specs share; see {@link rolloutDriver}. */
export interface RolloutDriver {
  /** The next unused MAC of this driver, `02:<prefix>:00:xx:xx:xx` in capitals. */
  nextMac: () => string;
  /**
   * A new tenant with `count` devices in group `fleet` and firmware `version` (2.0.0 unless
   * told). Small fleets register over HTTP one device after the other on 1.0.0 (their ids, the
   * rollout's stable order, follow `macs`); from 100 devices they are written to the device table
   * at once (versions `1.x`): registration is not what those specs test.
   */
  fleet: (count: number, version?: string) => Promise<Fleet>;
  /** A request to the operator API with the driver's operator token. */
  operator: (method: string, path: string, body?: unknown) => Promise<Answer>;
  /** Creates a rollout of the fleet's firmware to group `fleet` (start date in the past, `extra` on top) and starts it; its id. */
  plan: (f: Fleet, extra?: Record<string, unknown>) => Promise<number>;
  /** The rollout as the operator API shows it now. */
  rollout: (f: Fleet, id: number) => Promise<RolloutBody>;
  /** A device's rollout history, as the operator API shows it. */
  history: (f: Fleet, mac: string) => Promise<DeviceRolloutBody[]>;
  /** A device's `next/rollout` poll on `version` (1.0.0 unless told): the rollout id offered, or null. */
  next: (f: Fleet, mac: string, version?: string) => Promise<string | null>;
  /** The ledger entry types about rollout `id`, in ledger order. */
  ledgerTypes: (id: number) => Promise<string[]>;
}

/**
 * Drives rollouts over HTTP as devices and operators speak it, for specs whose `app` and operator
 * `bearer` are set in `before()`: `context` is read at each call. `macPrefix` (two hex digits)
 * keeps one spec's MACs apart from another's.
 */
export function rolloutDriver(context: () => { app: TestApp; bearer: string }, macPrefix: string): RolloutDriver {
  let macCounter = 0;
  const nextMac = (): string => {
    const n = ++macCounter;
    return ['02', macPrefix, '00', (n >> 16) & 255, (n >> 8) & 255, n & 255]
      .map((part) => (typeof part === 'number' ? part.toString(16).padStart(2, '0') : part).toUpperCase())
      .join(':');
  };
  const operator = (method: string, path: string, body?: unknown): Promise<Answer> => {
    const { app, bearer } = context();
    return request(method, `${app.urls.operator}${path}`, { bearer, body });
  };
  return {
    nextMac,
    operator,
    fleet: async (count, version = '2.0.0') => {
      const { app } = context();
      const tenant = await app.createTenant();
      const token = await app.login(tenant);
      let macs: string[];
      if (count >= 100) {
        await insertDevices(app, tenant, count);
        const rows = await app.database.query<{ mac: string }>('SELECT mac FROM device WHERE tenant_id = $1 ORDER BY id', [tenant.id]);
        macs = rows.map((row) => row.mac);
      } else {
        macs = Array.from({ length: count }, nextMac);
        for (const mac of macs) {
          const answer = await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: '1.0.0', name: mac }, token);
          assert.equal(answer.status, 200, answer.text);
        }
      }
      await app.createGroup(tenant, 'fleet', macs);
      const firmware = await app.publishFirmware(tenant, version, Buffer.from(`firmware ${version} of ${tenant.name}`));
      return { tenant, token, macs, firmwareId: firmware.id, cid: firmware.cid };
    },
    plan: async (f, extra = {}) => {
      const created = await operator('POST', `/tenants/${f.tenant.name}/rollouts`, {
        name: 'to 2.0.0',
        firmware_id: f.firmwareId,
        group: 'fleet',
        start_date: '2020-01-01 00:00:00',
        ...extra,
      });
      assert.equal(created.status, 201, created.text);
      const id = (created.body as RolloutBody).id;
      const started = await operator('POST', `/tenants/${f.tenant.name}/rollouts/${id}/start`);
      assert.equal(started.status, 200, started.text);
      return id;
    },
    rollout: async (f, id) => {
      const answer = await operator('GET', `/tenants/${f.tenant.name}/rollouts/${id}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body as RolloutBody;
    },
    history: async (f, mac) => {
      const answer = await operator('GET', `/tenants/${f.tenant.name}/devices/${mac.toLowerCase()}/rollouts`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body as DeviceRolloutBody[];
    },
    next: async (f, mac, version = '1.0.0') => {
      const answer = await post(`${context().app.urls.vc}/api/device/next/rollout`, { mac, firmware_version: version }, f.token);
      assert.equal(answer.status, 200, answer.text);
      return (answer.body as { rollout_id?: string }).rollout_id ?? null;
    },
    ledgerTypes: async (id) => {
      const entries = await context()
        .app.server.app.get(DataSource)
        .getRepository(LedgerEntry)
        .find({ where: { subject: Subject.rollout(id) }, order: { seq: 'ASC' } });
      return entries.map((entry) => entry.type);
    },
  };
}
