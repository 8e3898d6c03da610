import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { LedgerEntry } from '#src/domain/ledger/ledger-entry.entity.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import { post, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import type { OperatorRolloutResponse } from '#src/operator/dto/rollout.dto.js';

type RolloutBody = OperatorRolloutResponse;

const ROLLOUT_KEYS = [
  'id',
  'name',
  'status',
  'firmware_id',
  'group_id',
  'priority',
  'start_date',
  'downgrade',
  'offer_when',
  'targeted',
  'confirmed',
  'unsettled',
  'skipped',
  'not_applicable',
  'not_registered',
  'updated',
  'pending',
  'last_activity_at',
  'devices',
  'waves',
  'current_wave',
  'success_threshold',
  'error_threshold',
  'approval',
  'awaiting_approval',
  'pause_reason',
  'ddi_action_type',
  'windows',
  'window_open',
  'next_window_at',
  'window_closes_at',
  'ramp',
  'abort_criteria',
  'timeouts',
  'rollback',
  'rollback_rollout_id',
  'rollback_of',
];

/** State counts of no device (docs/decisions.md §10). */
const NO_DEVICES = {
  targeted: 0,
  pending: 0,
  offered: 0,
  downloading: 0,
  installed: 0,
  confirmed: 0,
  failed: 0,
  fell_back: 0,
  timed_out: 0,
  skipped: 0,
};

type State = 'draft' | 'active' | 'paused' | 'finished' | 'cancelled';
type Action = 'start' | 'pause' | 'resume' | 'cancel';

/** The state each action leads to (rollout-lifecycle.ts) and the states it is allowed from. */
const RULES: Record<Action, { to: State; from: State[] }> = {
  start: { to: 'active', from: ['draft'] },
  pause: { to: 'paused', from: ['active'] },
  resume: { to: 'active', from: ['paused'] },
  cancel: { to: 'cancelled', from: ['draft', 'active', 'paused'] },
};
const STATES: State[] = ['draft', 'active', 'paused', 'finished', 'cancelled'];

/**
 * docs/decisions.md §9 rollouts on the operator API: plan, list, get with progress, every lifecycle
 * transition allowed and refused, and the automatic finish driven by devices over the device
 * API (docs/decisions.md §6, §8).
 */
describe('operator API: rollouts (docs/decisions.md §8, §9)', () => {
  let app: TestApp;
  let bearer: string;
  let acme: TestTenant;
  let other: TestTenant;
  let firmwareId: number;
  let foreignFirmwareId: number;
  let foreignRolloutId: number;
  /** The one device of group `solo`, registered: it finishes rollouts of `solo` alone. */
  const SOLO_MAC = 'AC:67:B2:70:00:01';
  const FLEET = ['AC:67:B2:70:01:01', 'AC:67:B2:70:01:02', 'AC:67:B2:70:01:03'];
  /** The one device of group `watch`, registered: only the rollout under watch targets it. */
  const WATCH_MAC = 'AC:67:B2:70:02:01';

  const url = (path: string): string => `${app.urls.operator}${path}`;
  const api = (method: string, path: string, body?: unknown): Promise<Answer> => request(method, url(path), { bearer, body });
  const create = (body: Record<string, unknown>, tenant = 'ro-acme'): Promise<Answer> => api('POST', `/tenants/${tenant}/rollouts`, body);
  const plan = (overrides: Record<string, unknown> = {}) => ({
    name: 'rollout',
    firmware_id: firmwareId,
    group: 'solo',
    priority: 1,
    start_date: '2020-01-01 00:00:00',
    ...overrides,
  });
  const act = (id: number, action: Action): Promise<Answer> => api('POST', `/tenants/ro-acme/rollouts/${id}/${action}`);
  const read = async (id: number): Promise<RolloutBody> => {
    const answer = await api('GET', `/tenants/ro-acme/rollouts/${id}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as RolloutBody;
  };
  const created = async (overrides: Record<string, unknown> = {}): Promise<RolloutBody> => {
    const answer = await create(plan(overrides));
    assert.equal(answer.status, 201, answer.text);
    return answer.body as RolloutBody;
  };
  /** `status` with `{"message"}`, or `{"message", "field"}` when a 400 names the field. */
  const assertMessage = (answer: Answer, status: number, message: string, field?: string): void => {
    assert.equal(answer.status, status, answer.text);
    assert.deepEqual(answer.body, field === undefined ? { message } : { message, field });
  };
  /** Device side: the success report of `mac` for a rollout, over the device API on VC_URL. */
  const reportSuccess = async (token: string, mac: string, rolloutId: number): Promise<void> => {
    const answer = await post(
      `${app.urls.vc}/api/device/success/rollout`,
      { mac, firmware_version: '2.0.0', rollout_id: String(rolloutId) },
      token,
    );
    assert.deepEqual([answer.status, answer.body], [200, { message: 'Successfully inserted!' }]);
  };
  const offered = async (token: string, mac: string): Promise<string | undefined> => {
    const answer = await post(`${app.urls.vc}/api/device/next/rollout`, { mac, firmware_version: '1.0.0' }, token);
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as { rollout_id?: string }).rollout_id;
  };

  /** A new rollout of group `solo` brought to `state` through the API (and the device API for `finished`). */
  async function rolloutIn(state: State): Promise<number> {
    const { id } = await created({ name: `in ${state}` });
    // The solo device runs 1.0.0 again (it says so): a device already on 2.0.0 would count as
    // confirmed at the start (docs/decisions.md §10.5), and the rollout would finish at once.
    await offered(await app.login(acme), SOLO_MAC);
    const steps: Record<State, Action[]> = {
      draft: [],
      active: ['start'],
      paused: ['start', 'pause'],
      finished: ['start'],
      cancelled: ['cancel'],
    };
    for (const action of steps[state]) assert.equal((await act(id, action)).status, 200);
    if (state === 'finished') await reportSuccess(await app.login(acme), SOLO_MAC, id);
    assert.equal((await read(id)).status, state);
    return id;
  }

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('rollout-spec');
    acme = await app.createTenant('ro-acme', 'ESP32');
    other = await app.createTenant('ro-other', 'ESP32');
    firmwareId = (await app.publishFirmware(acme, '2.0.0', Buffer.from('acme firmware 2.0.0'))).id;
    foreignFirmwareId = (await app.publishFirmware(other, '2.0.0', Buffer.from('other firmware 2.0.0'))).id;
    await app.createGroup(acme, 'solo', [SOLO_MAC]);
    await app.createGroup(acme, 'fleet', FLEET);
    await app.createGroup(acme, 'watch', [WATCH_MAC]);
    await app.createGroup(other, 'solo', ['AC:67:B2:70:09:01']);
    foreignRolloutId = (await app.createRollout(other, { firmwareId: foreignFirmwareId, group: 'solo', start: false })).id;
    const token = await app.login(acme);
    for (const mac of [SOLO_MAC, WATCH_MAC, ...FLEET]) {
      const answer = await post(`${app.urls.vc}/api/device/register`, { mac, firmware_version: '1.0.0' }, token);
      assert.deepEqual(answer.body, { message: 'Device inserted!' });
    }
  });
  after(() => app.close());

  describe('POST /tenants/:tenant/rollouts', () => {
    it('plans a rollout in state draft → 201 with its plan and progress', async () => {
      const answer = await create(
        plan({ name: 'fleet 2.0.0', group: 'fleet', priority: 3, start_date: '2026-12-01 08:00:00', downgrade: true }),
      );
      assert.equal(answer.status, 201, answer.text);
      const body = answer.body as RolloutBody;
      assert.deepEqual(Object.keys(body), ROLLOUT_KEYS);
      assert.equal(typeof body.id, 'number');
      assert.equal(typeof body.group_id, 'number');
      assert.deepEqual(
        { ...body, id: 0, group_id: 0 },
        {
          id: 0,
          name: 'fleet 2.0.0',
          status: 'draft',
          firmware_id: firmwareId,
          group_id: 0,
          priority: 3,
          start_date: '2026-12-01 08:00:00',
          downgrade: true,
          offer_when: 'newer',
          targeted: 3,
          confirmed: 0,
          unsettled: 3,
          skipped: 0,
          not_applicable: 0,
          not_registered: 0,
          updated: 0,
          pending: 3,
          last_activity_at: null,
          devices: { ...NO_DEVICES, targeted: 3, pending: 3 },
          waves: [{ wave: 1, bound: '100%', status: 'waiting', started_at: null, devices: { ...NO_DEVICES, targeted: 3, pending: 3 } }],
          current_wave: 1,
          success_threshold: 0.9,
          error_threshold: null,
          approval: 'auto',
          awaiting_approval: false,
          pause_reason: null,
          ddi_action_type: 'forced',
          windows: [],
          window_open: true,
          next_window_at: null,
          window_closes_at: null,
          ramp: null,
          abort_criteria: [],
          timeouts: { offered: null, downloading: null, installed: null },
          rollback: null,
          rollback_rollout_id: null,
          rollback_of: null,
        },
      );
      assert.deepEqual(await read(body.id), body);
    });

    it('defaults priority to 1 and downgrade to false, and takes the group by id', async () => {
      const { group_id } = await created({ group: 'fleet' });
      const answer = await create({ name: 'by id', firmware_id: firmwareId, group: group_id, start_date: '2020-01-01 00:00:00' });
      assert.equal(answer.status, 201, answer.text);
      const body = answer.body as RolloutBody;
      assert.deepEqual([body.priority, body.downgrade, body.group_id, body.targeted], [1, false, group_id, 3]);
    });

    describe('400 naming the field', () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['no name', { name: undefined }, 'name is required'],
        ['an empty name', { name: '' }, 'name must be 1 to 128 characters'],
        ['a numeric name', { name: 42 }, 'name must be a string'],
        ['no firmware_id', { firmware_id: undefined }, 'firmware_id is required'],
        ['firmware_id as text', { firmware_id: '1' }, 'firmware_id must be a whole number'],
        ['firmware_id 0', { firmware_id: 0 }, 'firmware_id must be at least 1'],
        ['no group', { group: undefined }, 'group is required'],
        ['a group object', { group: { id: 1 } }, 'group must be a group id or name'],
        ['priority 0', { priority: 0 }, 'priority must be at least 1'],
        ['priority 1.5', { priority: 1.5 }, 'priority must be a whole number'],
        ['priority "1"', { priority: '1' }, 'priority must be a whole number'],
        ['priority over 1000000', { priority: 1_000_001 }, 'priority must be at most 1000000'],
        ['no start_date', { start_date: undefined }, 'start_date is required'],
        [
          'start_date as ISO 8601',
          { start_date: '2026-12-01T08:00:00Z' },
          'start_date must be a real UTC date and time "YYYY-MM-DD HH:MM:SS"',
        ],
        [
          'start_date on February 30',
          { start_date: '2026-02-30 08:00:00' },
          'start_date must be a real UTC date and time "YYYY-MM-DD HH:MM:SS"',
        ],
        ['start_date as a number', { start_date: 1764576000 }, 'start_date must be a string "YYYY-MM-DD HH:MM:SS" (UTC)'],
        ['downgrade "yes"', { downgrade: 'yes' }, 'downgrade must be true or false'],
        ['a wave bound of 0%', { waves: ['0%'] }, 'wave 1 ("0%") must be a share above 0% and at most 100%'],
      ];
      for (const [what, overrides, message] of cases) {
        it(`for ${what}: ${message}`, async () => {
          // Each case breaks one field: the answer names it.
          assertMessage(await create(plan({ name: `bad: ${what}`, ...overrides })), 400, message, Object.keys(overrides)[0]);
        });
      }

      it('for a body that is not a JSON object', async () => {
        assertMessage(await api('POST', '/tenants/ro-acme/rollouts', [plan()]), 400, 'Body must be a JSON object');
        assertMessage(await api('POST', '/tenants/ro-acme/rollouts'), 400, 'Body is required');
      });

      it('planned nothing for any refused body', async () => {
        const all = await api('GET', '/tenants/ro-acme/rollouts?per_page=500');
        assert.ok(!(all.body as { items: RolloutBody[] }).items.some((r) => r.name.startsWith('bad:')), all.text);
      });
    });

    it('answers 404 for a firmware or group that is not the tenant’s, and an unknown tenant', async () => {
      assertMessage(await create(plan({ firmware_id: foreignFirmwareId })), 404, 'Firmware not found');
      assertMessage(await create(plan({ firmware_id: 999_999 })), 404, 'Firmware not found');
      assertMessage(await create(plan({ group: 'no-such-group' })), 404, 'Group "no-such-group" not found');
      assertMessage(await create(plan(), 'nobody'), 404, 'Tenant "nobody" not found');
    });

    it('answers 415 to a body that is not JSON', async () => {
      const answer = await request('POST', url('/tenants/ro-acme/rollouts'), {
        bearer,
        rawBody: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assertMessage(answer, 415, 'Body must be application/json');
    });
  });

  describe('lifecycle: POST /tenants/:tenant/rollouts/:id/{start,pause,resume,cancel}', () => {
    for (const [action, rule] of Object.entries(RULES) as [Action, (typeof RULES)[Action]][]) {
      for (const state of STATES) {
        if (rule.from.includes(state)) {
          it(`${action} of a ${state} rollout → 200, ${rule.to}`, async () => {
            const id = await rolloutIn(state);
            const answer = await act(id, action);
            assert.equal(answer.status, 200, answer.text);
            assert.deepEqual(Object.keys(answer.body as object), ROLLOUT_KEYS);
            assert.equal((answer.body as RolloutBody).status, rule.to);
            assert.deepEqual(await read(id), answer.body);
          });
        } else {
          it(`${action} of a ${state} rollout → 409 naming both states, state unchanged`, async () => {
            const id = await rolloutIn(state);
            assertMessage(await act(id, action), 409, `Rollout ${id} cannot go from ${state} to ${rule.to}`);
            assert.equal((await read(id)).status, state);
          });
        }
      }
    }

    it('records each change on the ledger, and the chain still verifies', async () => {
      const id = await rolloutIn('draft');
      for (const action of ['start', 'pause', 'resume', 'cancel'] as const) assert.equal((await act(id, action)).status, 200);
      assert.equal((await act(id, 'start')).status, 409);
      const entries = await app.server.app
        .get(DataSource)
        .getRepository(LedgerEntry)
        .find({ where: { subject: Subject.rollout(id) }, order: { seq: 'ASC' } });
      assert.deepEqual(
        entries.map((e) => e.type),
        ['rollout.created', 'rollout.started', 'rollout.wave_started', 'rollout.paused', 'rollout.resumed', 'rollout.cancelled'],
      );
      assert.equal((await app.server.app.get(LedgerService).verify()).ok, true);
    });

    it('offers an active rollout to its devices, not a paused or cancelled one', async () => {
      const token = await app.login(acme);
      const { id } = await created({ name: 'under watch', group: 'watch' });
      assert.equal(await offered(token, WATCH_MAC), undefined, 'a draft is not offered');
      assert.equal((await act(id, 'start')).status, 200);
      assert.equal(await offered(token, WATCH_MAC), String(id));
      assert.equal((await act(id, 'pause')).status, 200);
      assert.equal(await offered(token, WATCH_MAC), undefined);
      assert.equal((await act(id, 'resume')).status, 200);
      assert.equal(await offered(token, WATCH_MAC), String(id));
      assert.equal((await act(id, 'cancel')).status, 200);
      assert.equal(await offered(token, WATCH_MAC), undefined);
    });

    it('answers 404 Rollout not found for another tenant’s rollout and an absent one, 400 for a bad id', async () => {
      for (const action of ['start', 'pause', 'resume', 'cancel'] as const) {
        assertMessage(await act(foreignRolloutId, action), 404, 'Rollout not found');
        assertMessage(await act(999_999, action), 404, 'Rollout not found');
        assertMessage(await api('POST', `/tenants/ro-acme/rollouts/abc/${action}`), 400, 'id must be a whole number', 'id');
      }
      const foreign = await request('GET', url(`/tenants/ro-other/rollouts/${foreignRolloutId}`), { bearer });
      assert.equal((foreign.body as RolloutBody).status, 'draft', 'the other tenant’s rollout was not touched');
    });

    it('answers 401 without an operator token', async () => {
      const id = await rolloutIn('draft');
      assertMessage(await request('POST', url(`/tenants/ro-acme/rollouts/${id}/start`)), 401, 'Operator token is not valid');
      assert.equal((await read(id)).status, 'draft');
    });
  });

  describe('progress and the automatic finish, driven by devices over the device API', () => {
    it('counts targeted / confirmed / unsettled as devices report success, then finishes by itself', async () => {
      const rollout = await created({ name: 'fleet progress', group: 'fleet' });
      assert.equal((await act(rollout.id, 'start')).status, 200);
      const token = await app.login(acme);
      for (const [i, mac] of FLEET.entries()) {
        assert.equal(await offered(token, mac), String(rollout.id));
        app.clock.advance(60);
        await reportSuccess(token, mac, rollout.id);
        const now = await read(rollout.id);
        const last = i === FLEET.length - 1;
        assert.deepEqual(
          {
            status: now.status,
            targeted: now.targeted,
            confirmed: now.confirmed,
            unsettled: now.unsettled,
            deprecated: [now.updated, now.pending],
            last_activity_at: now.last_activity_at,
          },
          {
            status: last ? 'finished' : 'active',
            targeted: 3,
            confirmed: i + 1,
            unsettled: FLEET.length - i - 1,
            deprecated: [i + 1, FLEET.length - i - 1],
            last_activity_at: new Date(app.clock.now()).toISOString(),
          },
        );
      }
      // A second report changes nothing; a finished rollout takes no action and is offered no more.
      const again = await post(
        `${app.urls.vc}/api/device/success/rollout`,
        { mac: FLEET[0], firmware_version: '2.0.0', rollout_id: String(rollout.id) },
        token,
      );
      assert.deepEqual(again.body, { message: 'Existing Record' });
      assert.equal((await read(rollout.id)).confirmed, 3);
      assert.equal(await offered(token, FLEET[0]), undefined);
      assertMessage(await act(rollout.id, 'cancel'), 409, `Rollout ${rollout.id} cannot go from finished to cancelled`);
      const entries = await app.server.app
        .get(DataSource)
        .getRepository(LedgerEntry)
        .find({ where: { subject: Subject.rollout(rollout.id) }, order: { seq: 'ASC' } });
      assert.deepEqual(
        entries.map((e) => e.type),
        ['rollout.created', 'rollout.started', 'rollout.wave_started', ...FLEET.map(() => 'rollout.device_confirmed'), 'rollout.finished'],
      );
    });

    it('finishes a paused rollout too when its last device reports success', async () => {
      const id = await rolloutIn('paused');
      await reportSuccess(await app.login(acme), SOLO_MAC, id);
      assert.equal((await read(id)).status, 'finished');
    });

    it('does not finish a cancelled rollout when its devices report success', async () => {
      const id = await rolloutIn('active');
      assert.equal((await act(id, 'cancel')).status, 200);
      await reportSuccess(await app.login(acme), SOLO_MAC, id);
      const after = await read(id);
      assert.deepEqual([after.status, after.confirmed, after.unsettled], ['cancelled', 1, 0]);
    });
  });

  describe('GET /tenants/:tenant/rollouts', () => {
    it('lists the tenant’s rollouts oldest first, paged, with progress', async () => {
      const all = (await api('GET', '/tenants/ro-acme/rollouts?per_page=500')).body as { items: RolloutBody[]; total: number };
      assert.ok(all.total > 10, `expected many rollouts, got ${all.total}`);
      assert.equal(all.items.length, all.total);
      assert.deepEqual(
        all.items.map((r) => r.id),
        [...all.items.map((r) => r.id)].sort((x, y) => x - y),
      );
      for (const r of all.items) assert.deepEqual(Object.keys(r), ROLLOUT_KEYS);
      const page = await api('GET', '/tenants/ro-acme/rollouts?page=3&per_page=4');
      assert.deepEqual(page.body, { items: all.items.slice(8, 12), page: 3, per_page: 4, total: all.total });
      assert.ok(!all.items.some((r) => r.id === foreignRolloutId), 'another tenant’s rollout was listed');
    });

    it('filters by status', async () => {
      const all = ((await api('GET', '/tenants/ro-acme/rollouts?per_page=500')).body as { items: RolloutBody[] }).items;
      for (const status of STATES) {
        const answer = await api('GET', `/tenants/ro-acme/rollouts?status=${status}&per_page=500`);
        assert.equal(answer.status, 200, answer.text);
        const expected = all.filter((r) => r.status === status);
        assert.ok(expected.length > 0, `no ${status} rollout to filter`);
        assert.deepEqual(answer.body, { items: expected, page: 1, per_page: 500, total: expected.length });
      }
    });

    it('answers 400 naming a bad status or paging parameter', async () => {
      assertMessage(
        await api('GET', '/tenants/ro-acme/rollouts?status=running'),
        400,
        'status must be one of draft, active, paused, finished, cancelled',
        'status',
      );
      assertMessage(await api('GET', '/tenants/ro-acme/rollouts?per_page=1000'), 400, 'per_page must be at most 500', 'per_page');
      assertMessage(await api('GET', '/tenants/ro-acme/rollouts?page=x'), 400, 'page must be a whole number', 'page');
    });

    it('answers 401 without a token and 404 for an unknown tenant', async () => {
      assertMessage(await request('GET', url('/tenants/ro-acme/rollouts')), 401, 'Operator token is not valid');
      assertMessage(await api('GET', '/tenants/nobody/rollouts'), 404, 'Tenant "nobody" not found');
    });
  });

  describe('GET /tenants/:tenant/rollouts/:id', () => {
    it('answers 404 Rollout not found for another tenant’s rollout, exactly as for an absent one', async () => {
      const foreign = await api('GET', `/tenants/ro-acme/rollouts/${foreignRolloutId}`);
      const absent = await api('GET', '/tenants/ro-acme/rollouts/999999');
      assertMessage(foreign, 404, 'Rollout not found');
      assert.deepEqual([foreign.status, foreign.body], [absent.status, absent.body]);
    });

    it('answers 400 naming id when it is not a whole number', async () => {
      for (const id of ['abc', '1e3', '0']) {
        const answer = await api('GET', `/tenants/ro-acme/rollouts/${id}`);
        assert.equal(answer.status, 400, answer.text);
        assert.match((answer.body as { message: string }).message, /^id must be/);
        assert.equal((answer.body as { field?: string }).field, 'id');
      }
    });
  });
});
