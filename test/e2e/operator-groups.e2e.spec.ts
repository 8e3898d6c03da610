import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { post, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { operatorClient, type OperatorClient } from '#test/support/operator.js';
import type { Page } from '#src/operator/dto/paging.dto.js';
import type { GroupDetailResponse, GroupResponse } from '#src/operator/dto/group.dto.js';

type Group = GroupResponse;
type GroupDetail = GroupDetailResponse;

/** docs/decisions.md §6, §9: device groups and membership by mac over the operator API. */
describe('operator API: groups (docs/decisions.md §6, §9)', () => {
  let app: TestApp;
  let op: OperatorClient;
  let a: TestTenant;
  let b: TestTenant;

  const groups = (tenant: TestTenant | string) => `/tenants/${typeof tenant === 'string' ? tenant : tenant.name}/groups`;
  const status = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });
  const detail = async (path: string): Promise<GroupDetail> => {
    const answer = await op.get(path);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as GroupDetail;
  };

  before(async () => {
    app = await startTestApp();
    op = operatorClient(app, await app.createOperatorToken());
    a = await app.createTenant('groups-a');
    b = await app.createTenant('groups-b');
  });
  after(() => app.close());

  describe('POST /tenants/:tenant/groups', () => {
    it('creates an empty group: 201 {id, name, members, filter, created_at}', async () => {
      const answer = await op.post(groups(a), { name: 'empty' });
      assert.equal(answer.status, 201, answer.text);
      const group = answer.body as Group;
      assert.deepEqual(Object.keys(group), ['id', 'name', 'members', 'filter', 'created_at']);
      assert.deepEqual(group, {
        id: group.id,
        name: 'empty',
        members: 0,
        filter: null,
        created_at: new Date(app.clock.now()).toISOString(),
      });
    });

    it('creates a group with initial members in any notation, stored canonical and once', async () => {
      const answer = await op.post(groups(a), {
        name: 'initial',
        macs: ['ac:67:b2:10:00:02', 'AC-67-B2-10-00-01', 'ac67.b210.0003', 'AC67B2100002', '02:00:00:00:00:00:00:01'],
      });
      assert.equal(answer.status, 201, answer.text);
      assert.equal((answer.body as Group).members, 4);
      const group = await detail(`${groups(a)}/initial`);
      assert.deepEqual(
        group.member_macs.items.map((m) => m.mac),
        ['02:00:00:00:00:00:00:01', 'AC:67:B2:10:00:01', 'AC:67:B2:10:00:02', 'AC:67:B2:10:00:03'],
      );
    });

    it('answers 400 naming a bad initial mac, and creates nothing', async () => {
      const answer = await op.post(groups(a), { name: 'half-bad', macs: ['AC:67:B2:10:00:01', 'AC:67 B2:10:00:09'] });
      assert.deepEqual(status(answer), {
        status: 400,
        body: {
          message: '"AC:67 B2:10:00:09" is not a device identifier: a hardware address (EUI-48 or EUI-64) or a controller id',
          field: 'macs',
        },
      });
      assert.deepEqual(status(await op.get(`${groups(a)}/half-bad`)), { status: 404, body: { message: 'Group "half-bad" not found' } });
    });

    it('answers 409 for a name the tenant has, while another tenant may use it', async () => {
      assert.deepEqual(status(await op.post(groups(a), { name: 'empty' })), { status: 409, body: { message: 'Group "empty" exists' } });
      assert.equal((await op.post(groups(b), { name: 'empty' })).status, 201);
    });

    for (const [label, body, message, field] of [
      ['a missing name', {}, 'name must be a string', 'name'],
      ['a name that is a number', { name: 7 }, 'name must be a string', 'name'],
      ['an empty name', { name: '' }, 'group name must be 1 to 128 characters and not only digits', 'name'],
      ['a name of only digits', { name: '2024' }, 'group name must be 1 to 128 characters and not only digits', 'name'],
      ['macs that are not an array', { name: 'x', macs: 'AC:67:B2:10:00:01' }, 'macs must be an array of mac strings', 'macs'],
      ['macs with a number', { name: 'x', macs: ['AC:67:B2:10:00:01', 5] }, 'macs must be an array of mac strings', 'macs'],
    ] as const) {
      it(`answers 400 naming the field for ${label}`, async () => {
        assert.deepEqual(status(await op.post(groups(a), body)), { status: 400, body: { message, field } });
      });
    }

    it('answers 404 for an unknown tenant', async () => {
      assert.deepEqual(status(await op.post(groups('nosuch'), { name: 'x' })), {
        status: 404,
        body: { message: 'Tenant "nosuch" not found' },
      });
    });
  });

  describe('GET /tenants/:tenant/groups', () => {
    it("lists the tenant's groups by id with member counts and paging, only the tenant's", async () => {
      const all = (await op.get(groups(a))).body as Page<Group>;
      assert.deepEqual(
        all.items.map((g) => [g.name, g.members]),
        [
          ['empty', 0],
          ['initial', 4],
        ],
      );
      assert.equal(all.total, 2);
      const second = (await op.get(`${groups(a)}?page=2&per_page=1`)).body as Page<Group>;
      assert.deepEqual(
        { names: second.items.map((g) => g.name), page: second.page, per_page: second.per_page, total: second.total },
        { names: ['initial'], page: 2, per_page: 1, total: 2 },
      );
      assert.deepEqual(
        ((await op.get(groups(b))).body as Page<Group>).items.map((g) => g.name),
        ['empty'],
      );
    });

    it('answers 400 for bad paging and 404 for an unknown tenant', async () => {
      assert.deepEqual(status(await op.get(`${groups(a)}?per_page=0`)), {
        status: 400,
        body: { message: 'per_page must be at least 1', field: 'per_page' },
      });
      assert.equal((await op.get(groups('nosuch'))).status, 404);
    });
  });

  describe('GET /tenants/:tenant/groups/:group', () => {
    it('answers the group by name or id with its count and members by mac, each marked registered or not', async () => {
      const token = await app.login(a);
      await post(`${app.urls.vc}/api/device/register`, { mac: 'AC:67:B2:10:00:02', firmware_version: '1.0' }, token);
      const byName = await detail(`${groups(a)}/initial`);
      const byId = await detail(`${groups(a)}/${byName.id}`);
      assert.deepEqual(byId, byName);
      assert.deepEqual(
        { ...byName, member_macs: undefined },
        { id: byName.id, name: 'initial', members: 4, filter: null, created_at: byName.created_at, member_macs: undefined },
      );
      assert.deepEqual(byName.member_macs, {
        items: [
          { mac: '02:00:00:00:00:00:00:01', registered: false },
          { mac: 'AC:67:B2:10:00:01', registered: false },
          { mac: 'AC:67:B2:10:00:02', registered: true },
          { mac: 'AC:67:B2:10:00:03', registered: false },
        ],
        page: 1,
        per_page: 50,
        total: 4,
        next: null,
      });
    });

    it('pages the members', async () => {
      const group = await detail(`${groups(a)}/initial?page=2&per_page=3`);
      assert.equal(group.members, 4);
      assert.deepEqual(group.member_macs, {
        items: [{ mac: 'AC:67:B2:10:00:03', registered: false }],
        page: 2,
        per_page: 3,
        total: 4,
        next: null,
      });
    });

    it('pages the members by cursor: every member there all along seen once, also while members come and go', async () => {
      const mac = (n: number) => `AC:67:B2:20:00:${n.toString(16).padStart(2, '0').toUpperCase()}`;
      const all = Array.from({ length: 23 }, (_, i) => mac(2 * i + 2)); // even ones; odd ones join mid-walk
      assert.equal((await op.post(groups(a), { name: 'walk', macs: all })).status, 201);
      for (const perPage of [1, 2, 5, 7, 23, 50]) {
        const seen: string[] = [];
        let after: string | null | undefined;
        let pages = 0;
        do {
          const query = `per_page=${perPage}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
          const page = (await detail(`${groups(a)}/walk?${query}`)).member_macs;
          assert.equal(page.page, 1);
          assert.ok(page.items.length <= perPage);
          seen.push(...page.items.map((m) => m.mac));
          if (pages === 1) {
            // Members come and go mid-walk: a newcomer before the cursor, one after it, and one leaves.
            await op.post(`${groups(a)}/walk/members`, { macs: [mac(1), mac(45)] });
            await op.post(`${groups(a)}/walk/members/remove`, { macs: [mac(44)] });
          }
          after = page.next;
          pages++;
          assert.ok(pages <= all.length + 2, `the walk ends (per_page ${perPage})`);
        } while (after !== null);
        const kept = all.filter((m) => m !== mac(44));
        for (const m of kept) assert.equal(seen.filter((s) => s === m).length, 1, `${m} once at per_page ${perPage}`);
        assert.equal(new Set(seen).size, seen.length, `no member twice at per_page ${perPage}`);
        assert.ok(!seen.includes(mac(1)), 'a member that joined before the cursor does not shift the pages after it');
        // Back to the group as it was.
        await op.post(`${groups(a)}/walk/members/remove`, { macs: [mac(1), mac(45)] });
        await op.post(`${groups(a)}/walk/members`, { macs: [mac(44)] });
      }
      const last = await detail(`${groups(a)}/walk?after=${encodeURIComponent(mac(46))}`);
      assert.deepEqual(
        { items: last.member_macs.items, total: last.member_macs.total, next: last.member_macs.next },
        { items: [], total: 23, next: null },
      );
    });

    it('answers 400 for a cursor with a page past 1, and for an empty or overlong cursor', async () => {
      for (const [query, message] of [
        ['after=AC%3A67&page=2', 'after and page exclude each other: page by cursor (after) or by number (page)'],
        ['after=', 'after must be 1 to 256 characters: the `next` of the page before'],
        [`after=${'A'.repeat(257)}`, 'after must be 1 to 256 characters: the `next` of the page before'],
      ]) {
        const answer = await op.get(`${groups(a)}/initial?${query}`);
        assert.deepEqual(status(answer), { status: 400, body: { message, field: 'after' } }, query);
      }
    });

    it('does not count a device of another tenant with a member mac as registered', async () => {
      const tokenB = await app.login(b);
      await post(`${app.urls.vc}/api/device/register`, { mac: 'AC:67:B2:10:00:03', firmware_version: '1.0' }, tokenB);
      const group = await detail(`${groups(a)}/initial`);
      assert.equal(group.member_macs.items.find((m) => m.mac === 'AC:67:B2:10:00:03')?.registered, false);
    });

    it("answers 404 for an unknown group and for another tenant's group, by name or id", async () => {
      const foreign = (await detail(`${groups(b)}/empty`)).id;
      for (const ref of ['nosuch', String(foreign)]) {
        assert.deepEqual(status(await op.get(`${groups(a)}/${ref}`)), { status: 404, body: { message: `Group "${ref}" not found` } });
      }
    });
  });

  describe('members', () => {
    it('adds macs in any notation, canonicalized; ones already in the group stay once', async () => {
      const answer = await op.post(`${groups(a)}/empty/members`, { macs: ['ac-67-b2-20-00-01', 'AC:67:B2:20:00:02', 'ac67b2200001'] });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(
        { ...(answer.body as Group), id: 0, created_at: '' },
        { id: 0, name: 'empty', members: 2, filter: null, created_at: '' },
      );
      const again = await op.post(`${groups(a)}/empty/members`, { macs: ['AC:67:B2:20:00:02', 'AC:67:B2:20:00:03'] });
      assert.equal((again.body as Group).members, 3);
      assert.deepEqual(
        (await detail(`${groups(a)}/empty`)).member_macs.items.map((m) => m.mac),
        ['AC:67:B2:20:00:01', 'AC:67:B2:20:00:02', 'AC:67:B2:20:00:03'],
      );
    });

    it('makes added members show under the group filter of the device list', async () => {
      const token = await app.login(a);
      await post(`${app.urls.vc}/api/device/register`, { mac: 'AC:67:B2:20:00:03', firmware_version: '1.0' }, token);
      const devices = (await op.get(`/tenants/${a.name}/devices?group=empty`)).body as Page<{ mac: string }>;
      assert.deepEqual(
        devices.items.map((d) => d.mac),
        ['AC:67:B2:20:00:03'],
      );
    });

    it('removes macs in any notation; macs not in the group are ignored', async () => {
      const answer = await op.post(`${groups(a)}/empty/members/remove`, { macs: ['ac-67-b2-20-00-01', 'AC:67:B2:20:00:99'] });
      assert.equal(answer.status, 200, answer.text);
      assert.equal((answer.body as Group).members, 2);
      assert.deepEqual(
        (await detail(`${groups(a)}/empty`)).member_macs.items.map((m) => m.mac),
        ['AC:67:B2:20:00:02', 'AC:67:B2:20:00:03'],
      );
    });

    it('answers 400 naming a bad mac, and changes nothing', async () => {
      for (const path of ['members', 'members/remove']) {
        const answer = await op.post(`${groups(a)}/empty/${path}`, { macs: ['AC:67:B2:20:00:07', 'not/a/mac'] });
        assert.deepEqual(status(answer), {
          status: 400,
          body: {
            message: '"not/a/mac" is not a device identifier: a hardware address (EUI-48 or EUI-64) or a controller id',
            field: 'macs',
          },
        });
      }
      assert.equal((await detail(`${groups(a)}/empty`)).members, 2);
    });

    for (const [label, body, message] of [
      ['an empty list', { macs: [] }, 'macs must name at least one mac'],
      ['a missing list', {}, 'macs must be an array of mac strings'],
      ['a list with a non-string', { macs: [null] }, 'macs must be an array of mac strings'],
    ] as const) {
      it(`answers 400 for ${label}`, async () => {
        assert.deepEqual(status(await op.post(`${groups(a)}/empty/members`, body)), { status: 400, body: { message, field: 'macs' } });
        assert.deepEqual(status(await op.post(`${groups(a)}/empty/members/remove`, body)), {
          status: 400,
          body: { message, field: 'macs' },
        });
      });
    }

    it("answers 404 for an unknown group or another tenant's group, and changes nothing there", async () => {
      assert.deepEqual(status(await op.post(`${groups(a)}/nosuch/members`, { macs: ['AC:67:B2:20:00:01'] })), {
        status: 404,
        body: { message: 'Group "nosuch" not found' },
      });
      const foreign = (await detail(`${groups(b)}/empty`)).id;
      assert.equal((await op.post(`${groups(a)}/${foreign}/members`, { macs: ['AC:67:B2:20:00:01'] })).status, 404);
      assert.equal((await op.post(`${groups(a)}/${foreign}/members/remove`, { macs: ['AC:67:B2:20:00:01'] })).status, 404);
      assert.equal((await detail(`${groups(b)}/empty`)).members, 0);
    });
  });
});
