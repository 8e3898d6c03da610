import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GroupService } from '#src/domain/group/group.service.js';
import { post, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { operatorClient, type OperatorClient } from '#test/support/operator.js';
import type { Page } from '#src/operator/dto/paging.dto.js';
import type { DeviceDetailResponse, DeviceSummaryResponse } from '#src/operator/dto/fleet.dto.js';

type Device = DeviceSummaryResponse;
type DeviceDetail = DeviceDetailResponse;

const mac = (n: number) => `AC:67:B2:00:00:${String(n).padStart(2, '0')}`;

/** docs/decisions.md §9: a tenant's devices over the operator API, filtered and paged, one with its groups and rollout history. */
describe('operator API: devices (docs/decisions.md §6, §9)', () => {
  let app: TestApp;
  let op: OperatorClient;
  let a: TestTenant;
  let b: TestTenant;
  let registeredAt: string;
  let seenLaterAt: string;

  const register = async (token: string, n: number, name: string, version: string) => {
    const answer = await post(`${app.urls.vc}/api/device/register`, { mac: mac(n), name, firmware_version: version }, token);
    assert.deepEqual(answer.body, { message: 'Device inserted!' });
  };
  const list = async (query = ''): Promise<Page<Device>> => {
    const answer = await op.get(`/tenants/${a.name}/devices${query}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as Page<Device>;
  };
  const macsOf = async (query: string): Promise<string[]> => (await list(query)).items.map((d) => d.mac);

  before(async () => {
    app = await startTestApp();
    op = operatorClient(app, await app.createOperatorToken());
    a = await app.createTenant('devices-a', 'ESP32');
    b = await app.createTenant('devices-b', 'ESP32');
    const esp8266 = await app.createDeviceKey(a, 'ESP8266');
    const tokenA = await app.login(a);
    const token8266 = await app.login(esp8266);
    const tokenB = await app.login(b);
    registeredAt = new Date(app.clock.now()).toISOString();
    // Registered out of mac order: the list sorts by mac.
    await register(tokenA, 3, 'three', '2.0');
    await register(token8266, 4, 'four', '1.0');
    await register(tokenA, 1, 'one', '1.0');
    await register(tokenA, 2, 'two', '1.0');
    // Tenant B has a device with one of A's macs, and one of its own.
    await register(tokenB, 1, 'b-one', '9.9');
    await register(tokenB, 99, 'b-only', '9.9');
    await app.createGroup(a, 'north', [mac(1), mac(2)]);
    await app.createGroup(a, 'south', [mac(2), mac(4)]);
    await app.createGroup(b, 'b-group', [mac(1), mac(99)]);
    app.clock.advance(600);
    seenLaterAt = new Date(app.clock.now()).toISOString();
    assert.equal((await post(`${app.urls.vc}/api/device/next/rollout`, { mac: mac(3), firmware_version: '2.0' }, tokenA)).status, 200);
  });
  after(() => app.close());

  describe('GET /tenants/:tenant/devices', () => {
    it("lists the tenant's devices by mac with every field, and none of another tenant's", async () => {
      const page = await list();
      assert.deepEqual({ page: page.page, per_page: page.per_page, total: page.total }, { page: 1, per_page: 50, total: 4 });
      const asvin = { protocol: 'asvin', has_target_token: false, attributes: null } as const;
      assert.deepEqual(page.items, [
        {
          mac: mac(1),
          name: 'one',
          firmware_version: '1.0',
          device_type: 'ESP32',
          last_seen_at: registeredAt,
          created_at: registeredAt,
          ...asvin,
        },
        {
          mac: mac(2),
          name: 'two',
          firmware_version: '1.0',
          device_type: 'ESP32',
          last_seen_at: registeredAt,
          created_at: registeredAt,
          ...asvin,
        },
        {
          mac: mac(3),
          name: 'three',
          firmware_version: '2.0',
          device_type: 'ESP32',
          last_seen_at: seenLaterAt,
          created_at: registeredAt,
          ...asvin,
        },
        {
          mac: mac(4),
          name: 'four',
          firmware_version: '1.0',
          device_type: 'ESP8266',
          last_seen_at: registeredAt,
          created_at: registeredAt,
          ...asvin,
        },
      ]);
      const text = JSON.stringify(page);
      assert.ok(!text.includes('b-one') && !text.includes(mac(99)), text);
    });

    it('answers page 2 with the total of all pages', async () => {
      const page = await list('?page=2&per_page=3');
      assert.deepEqual(
        page.items.map((d) => d.mac),
        [mac(4)],
      );
      assert.deepEqual({ page: page.page, per_page: page.per_page, total: page.total }, { page: 2, per_page: 3, total: 4 });
    });

    it('filters by group, by name or id', async () => {
      assert.deepEqual(await macsOf('?group=north'), [mac(1), mac(2)]);
      assert.deepEqual(await macsOf('?group=south'), [mac(2), mac(4)]);
      const south = (await app.server.app.get(GroupService).require(a.id, 'south')).id;
      assert.deepEqual(await macsOf(`?group=${south}`), [mac(2), mac(4)]);
    });

    it("answers 404 for a group the tenant does not have, also another tenant's", async () => {
      for (const group of ['nosuch', 'b-group']) {
        const answer = await op.get(`/tenants/${a.name}/devices?group=${group}`);
        assert.deepEqual({ status: answer.status, body: answer.body }, { status: 404, body: { message: `Group "${group}" not found` } });
      }
    });

    it('filters by firmware version and by device type, alone and together', async () => {
      assert.deepEqual(await macsOf('?firmware_version=1.0'), [mac(1), mac(2), mac(4)]);
      assert.deepEqual(await macsOf('?firmware_version=2.0'), [mac(3)]);
      assert.deepEqual(await macsOf('?firmware_version=9.9'), []);
      assert.deepEqual(await macsOf('?device_type=ESP8266'), [mac(4)]);
      assert.deepEqual(await macsOf('?firmware_version=1.0&device_type=ESP32'), [mac(1), mac(2)]);
      assert.deepEqual(await macsOf('?firmware_version=1.0&device_type=ESP32&group=south'), [mac(2)]);
    });

    it('filters by last-seen time (ISO 8601, with or without offset; a date is midnight UTC)', async () => {
      assert.deepEqual(await macsOf(`?seen_since=${encodeURIComponent(seenLaterAt)}`), [mac(3)]);
      assert.deepEqual(await macsOf(`?seen_since=${encodeURIComponent(registeredAt)}`), [mac(1), mac(2), mac(3), mac(4)]);
      const later = new Date(Date.parse(seenLaterAt) + 1000);
      assert.deepEqual(await macsOf(`?seen_since=${encodeURIComponent(later.toISOString())}`), []);
      // The same instant written with a +02:00 offset.
      const shifted = new Date(Date.parse(seenLaterAt) + 2 * 3600_000).toISOString().replace(/\.\d+Z$/, '+02:00');
      assert.deepEqual(await macsOf(`?seen_since=${encodeURIComponent(shifted)}`), [mac(3)]);
      assert.deepEqual(await macsOf(`?seen_since=${registeredAt.slice(0, 10)}`), [mac(1), mac(2), mac(3), mac(4)]);
    });

    it('counts the total of the filtered list', async () => {
      const page = await list('?firmware_version=1.0&per_page=1&page=3');
      assert.deepEqual(page, { items: [(await list('?firmware_version=1.0')).items[2]], page: 3, per_page: 1, total: 3, next: null });
    });

    it('treats filter values as values, never as SQL', async () => {
      assert.deepEqual(await macsOf(`?firmware_version=${encodeURIComponent("1.0' OR '1'='1")}`), []);
      assert.deepEqual(await macsOf(`?device_type=${encodeURIComponent('ESP32" OR 1=1 --')}`), []);
    });

    for (const [query, message, field] of [
      ['seen_since=yesterday', 'seen_since must be an ISO 8601 date or date-time, e.g. 2026-11-21T10:00:00Z', 'seen_since'],
      ['seen_since=2026-02-30', 'seen_since must be an ISO 8601 date or date-time, e.g. 2026-11-21T10:00:00Z', 'seen_since'],
      [`firmware_version=${'9'.repeat(65)}`, 'firmware_version must be 1 to 64 characters', 'firmware_version'],
      ['device_type=', 'device_type must be 1 to 64 characters', 'device_type'],
      ['group=north&group=south', 'group must be a string', 'group'],
      ['per_page=501', 'per_page must be at most 500', 'per_page'],
      ['page=0', 'page must be at least 1', 'page'],
      ['after=', 'after must be 1 to 256 characters: the `next` of the page before', 'after'],
      [`after=${'A'.repeat(257)}`, 'after must be 1 to 256 characters: the `next` of the page before', 'after'],
      ['page=2&after=AC', 'after and page exclude each other: page by cursor (after) or by number (page)', 'after'],
    ] as const) {
      it(`answers 400 naming the parameter for ${query.slice(0, 40)}`, async () => {
        const answer = await op.get(`/tenants/${a.name}/devices?${query}`);
        assert.deepEqual({ status: answer.status, body: answer.body }, { status: 400, body: { message, field } });
      });
    }

    it('answers 404 for an unknown tenant', async () => {
      const answer = await op.get('/tenants/nosuch/devices');
      assert.deepEqual({ status: answer.status, body: answer.body }, { status: 404, body: { message: 'Tenant "nosuch" not found' } });
    });

    it("lists tenant B's own record for a mac both tenants have", async () => {
      const answer = await op.get(`/tenants/${b.id}/devices`);
      assert.deepEqual(
        (answer.body as Page<Device>).items.map((d) => [d.mac, d.name]),
        [
          [mac(1), 'b-one'],
          [mac(99), 'b-only'],
        ],
      );
    });
  });

  describe('GET /tenants/:tenant/devices?after= (keyset paging)', () => {
    let c: TestTenant;
    let token: string;
    /** Tenant C's devices, by mac. */
    const fleet = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20].map(mac);
    type CursorPage = Page<Device> & { next: string | null };
    const listC = async (query: string): Promise<CursorPage> => {
      const answer = await op.get(`/tenants/${c.name}/devices?${query}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body as CursorPage;
    };
    /** Every page from `first` on by cursor: the macs seen, in order, and the pages' `total`s. */
    const walk = async (query: string, between?: (page: number) => Promise<void>) => {
      const seen: string[] = [];
      const totals = new Set<number>();
      let page = await listC(query);
      for (let n = 1; ; n++) {
        assert.equal(page.page, 1);
        seen.push(...page.items.map((d) => d.mac));
        totals.add(page.total);
        if (page.next === null) break;
        assert.equal(page.next, page.items[page.items.length - 1].mac);
        assert.ok(n <= fleet.length + 2, 'the walk ends');
        await between?.(n);
        page = await listC(`${query}&after=${encodeURIComponent(page.next)}`);
      }
      return { seen, totals: [...totals] };
    };

    before(async () => {
      c = await app.createTenant('devices-c', 'ESP32');
      token = await app.login(c);
      // Registered out of mac order, two firmware versions.
      for (const n of [15, 12, 20, 10, 18, 11, 17, 13, 19, 16, 14]) await register(token, n, `c-${n}`, n % 2 ? '1.0' : '2.0');
    });

    for (const perPage of [1, 2, 3, 4, 10, 11, 12, 500]) {
      it(`walks every device exactly once, by mac, ${perPage} a page; the last page's next is null`, async () => {
        const { seen, totals } = await walk(`per_page=${perPage}`);
        assert.deepEqual(seen, fleet);
        assert.deepEqual(totals, [fleet.length]);
      });
    }

    it('walks the devices that pass the filters; total counts them all on every page', async () => {
      const { seen, totals } = await walk('per_page=2&firmware_version=1.0');
      assert.deepEqual(
        seen,
        fleet.filter((_, i) => (10 + i) % 2 === 1),
      );
      assert.deepEqual(totals, [5]);
    });

    it("continues an offset page's next by cursor", async () => {
      const second = await listC('per_page=4&page=2');
      assert.deepEqual(
        second.items.map((d) => d.mac),
        fleet.slice(4, 8),
      );
      assert.equal(second.next, fleet[7]);
      const third = await listC(`per_page=4&after=${encodeURIComponent(second.next)}`);
      assert.deepEqual({ macs: third.items.map((d) => d.mac), next: third.next }, { macs: fleet.slice(8), next: null });
    });

    it('answers every page by offset with its slice of the list and its next, in the second half too (read from the end)', async () => {
      const ones = fleet.filter((_, i) => (10 + i) % 2 === 1);
      for (const [filter, devices] of [
        ['', fleet],
        ['&firmware_version=1.0', ones],
      ] as const) {
        for (const perPage of [1, 2, 3, 4, 5, 10]) {
          for (let n = 1; n <= Math.ceil(devices.length / perPage) + 1; n++) {
            const page = await listC(`per_page=${perPage}&page=${n}${filter}`);
            const slice = devices.slice((n - 1) * perPage, n * perPage);
            const next = n * perPage < devices.length ? devices[n * perPage - 1] : null;
            assert.deepEqual(
              { macs: page.items.map((d) => d.mac), next: page.next },
              { macs: slice, next },
              `${filter} ${perPage} page ${n}`,
            );
          }
        }
      }
    });

    it("answers every page of a group's members by offset with its slice, in the second half too", async () => {
      const members = [...fleet, '02:00:00:00:00:99'].sort();
      await app.createGroup(c, 'everyone-c', members);
      for (const perPage of [1, 2, 3, 5, 7]) {
        for (let n = 1; n <= Math.ceil(members.length / perPage) + 1; n++) {
          const answer = await op.get(`/tenants/${c.name}/groups/everyone-c?per_page=${perPage}&page=${n}`);
          assert.equal(answer.status, 200, answer.text);
          const page = (
            answer.body as { member_macs: { items: { mac: string; registered: boolean }[]; total: number; next: string | null } }
          ).member_macs;
          const slice = members.slice((n - 1) * perPage, n * perPage);
          assert.deepEqual(
            page.items.map((m) => `${m.mac} ${m.registered}`),
            slice.map((mac) => `${mac} ${fleet.includes(mac)}`),
            `${perPage} page ${n}`,
          );
          assert.equal(page.next, n * perPage < members.length ? members[n * perPage - 1] : null, `${perPage} page ${n}`);
          assert.equal(page.total, members.length);
        }
      }
    });

    it('takes any text as a cursor: the devices sorting after it', async () => {
      assert.deepEqual(
        (await listC(`after=${encodeURIComponent('AC:67:B2:00:00:15x')}`)).items.map((d) => d.mac),
        fleet.slice(6),
      );
      assert.deepEqual((await listC('after=ZZ')).items, []);
      assert.equal((await listC('after=ZZ')).next, null);
    });

    it('sees each device there was exactly once when devices are registered during the walk (an offset would repeat one)', async () => {
      const { seen } = await walk('per_page=3', async (page) => {
        if (page === 1) {
          await register(token, 5, 'c-before', '1.0'); // sorts before the cursor: not seen by this walk
          await register(token, 99, 'c-after', '1.0'); // sorts after it: seen at the end
        }
      });
      assert.deepEqual(seen, [...fleet, mac(99)]);
      assert.equal(new Set(seen).size, seen.length);
    });
  });

  describe('GET /tenants/:tenant/devices/:mac', () => {
    let tokenA: string;
    let north: { id: number; name: string };
    let south: { id: number; name: string };
    let rolloutNorth: number;
    let draftSouth: number;
    let reportedAt: string;

    before(async () => {
      tokenA = await app.login(a);
      const groups = app.server.app.get(GroupService);
      north = await groups.require(a.id, 'north');
      south = await groups.require(a.id, 'south');
      const firmware = await app.publishFirmware(a, '1.1', Buffer.from('firmware 1.1 for ESP32'));
      rolloutNorth = (await app.createRollout(a, { name: 'north to 1.1', firmwareId: firmware.id, group: 'north' })).id;
      draftSouth = (await app.createRollout(a, { name: 'south draft', firmwareId: firmware.id, group: 'south', start: false })).id;
      app.clock.advance(60);
      reportedAt = new Date(app.clock.now()).toISOString();
      const success = await post(
        `${app.urls.vc}/api/device/success/rollout`,
        { mac: mac(1), firmware_version: '1.1', rollout_id: String(rolloutNorth) },
        tokenA,
      );
      assert.deepEqual(success.body, { message: 'Successfully inserted!' });
    });

    it('answers the device (any mac notation) with its groups and its rollouts, with the success it reported', async () => {
      const answer = await op.get(`/tenants/${a.name}/devices/ac-67-b2-00-00-01`);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, {
        mac: mac(1),
        name: 'one',
        firmware_version: '1.1',
        device_type: 'ESP32',
        last_seen_at: reportedAt,
        created_at: registeredAt,
        protocol: 'asvin',
        has_target_token: false,
        attributes: null,
        groups: [{ id: north.id, name: 'north' }],
        labels: [],
        rollouts: [
          {
            id: rolloutNorth,
            name: 'north to 1.1',
            status: 'active',
            group: { id: north.id, name: 'north' },
            firmware_id: 1,
            version: '1.1',
            succeeded: true,
            reported_at: reportedAt,
            reported_version: '1.1',
            state: 'confirmed',
            wave: 1,
          },
        ],
      } satisfies DeviceDetail);
    });

    it('shows a device in two groups with every rollout targeting them, pending ones as not succeeded', async () => {
      const detail = (await op.get(`/tenants/${a.id}/devices/${mac(2)}`)).body as DeviceDetail;
      assert.deepEqual(detail.groups, [
        { id: north.id, name: 'north' },
        { id: south.id, name: 'south' },
      ]);
      assert.deepEqual(
        detail.rollouts.map((r) => [r.id, r.status, r.group.name, r.succeeded, r.reported_at, r.reported_version]),
        [
          [rolloutNorth, 'active', 'north', false, null, null],
          [draftSouth, 'draft', 'south', false, null, null],
        ],
      );
    });

    it('shows no groups and no rollouts for a device in none', async () => {
      const detail = (await op.get(`/tenants/${a.name}/devices/${mac(3)}`)).body as DeviceDetail;
      assert.deepEqual({ groups: detail.groups, rollouts: detail.rollouts }, { groups: [], rollouts: [] });
      assert.equal(detail.last_seen_at, seenLaterAt);
    });

    it('keeps a reported success in the history after the device leaves the group', async () => {
      await app.server.app.get(GroupService).removeMembers(a.id, 'north', [mac(1)]);
      const detail = (await op.get(`/tenants/${a.name}/devices/${mac(1)}`)).body as DeviceDetail;
      assert.deepEqual(detail.groups, []);
      assert.deepEqual(
        detail.rollouts.map((r) => [r.id, r.succeeded]),
        [[rolloutNorth, true]],
      );
    });

    it("answers tenant B's record for the shared mac under B, without A's groups or rollouts", async () => {
      const detail = (await op.get(`/tenants/${b.name}/devices/${mac(1)}`)).body as DeviceDetail;
      assert.equal(detail.name, 'b-one');
      assert.equal(detail.firmware_version, '9.9');
      assert.deepEqual(
        detail.groups.map((g) => g.name),
        ['b-group'],
      );
      assert.deepEqual(detail.rollouts, []);
    });

    it('answers 404 for a mac only another tenant has, as for an absent one', async () => {
      const foreign = await op.get(`/tenants/${a.name}/devices/${mac(99)}`);
      assert.deepEqual({ status: foreign.status, body: foreign.body }, { status: 404, body: { message: `Device "${mac(99)}" not found` } });
      assert.ok(!foreign.text.includes('b-only'));
      const absent = await op.get(`/tenants/${a.name}/devices/${mac(98)}`);
      assert.deepEqual(absent.body, { message: `Device "${mac(98)}" not found` });
    });

    it('answers 400 for text that is neither a mac nor a controller id, 404 for a controller id no device has, and for an unknown tenant', async () => {
      const bad = await op.get(`/tenants/${a.name}/devices/${encodeURIComponent('not a device')}`);
      assert.equal(bad.status, 400);
      assert.match((bad.body as { message: string }).message, /^device must be a hardware address .* or a controller id/);
      assert.equal((bad.body as { field?: string }).field, 'mac');
      assert.deepEqual((await op.get(`/tenants/${a.name}/devices/not-a-mac`)).body, { message: 'Device "not-a-mac" not found' });
      assert.deepEqual((await op.get(`/tenants/nosuch/devices/${mac(1)}`)).body, { message: 'Tenant "nosuch" not found' });
    });
  });
});
