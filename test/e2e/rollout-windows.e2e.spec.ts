import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { post, request, startInstance, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';
import { rolloutDriver, type RolloutBody } from '#test/support/rollouts.js';
import { runCli } from '#test/support/operator.js';

/** The rollout fields of windows and ramp, as the operator API answers them. */
interface WindowedRollout extends RolloutBody {
  windows: { cron: string; duration_seconds: number; time_zone: string }[];
  window_open: boolean;
  next_window_at: string | null;
  window_closes_at: string | null;
  ramp: Record<string, unknown> | null;
}

/** A DDI deployment as the device reads it. */
interface Deployment {
  deployment: { download: string; update: string; maintenanceWindow?: string };
}

/** `M H * * *`: daily at the wall-clock time of `at` in `zone`. */
function dailyAt(at: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(
    new Date(at),
  );
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return `${part('minute')} ${part('hour')} * * *`;
}

/**
 * Maintenance windows and the ramp (docs/decisions.md §10.1), over HTTP: asvin devices ask for the
 * next rollout, hawkBit DDI devices poll their root resource and read the deployment; operators
 * plan through the operator API and the CLI. Time moves with the app's test clock.
 */
describe('rollout maintenance windows and ramp (docs/decisions.md §10.1)', () => {
  let app: TestApp;
  let bearer: string;
  const { fleet, operator, plan, next } = rolloutDriver(() => ({ app, bearer }), '5C');
  const show = async (tenant: string, id: number): Promise<WindowedRollout> => {
    const answer = await operator('GET', `/tenants/${tenant}/rollouts/${id}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as WindowedRollout;
  };

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('rollout-windows-spec');
  });
  after(() => app.close());

  it('a closed window in Asia/Tokyo withholds the offer (asvin: nothing; DDI: download, update skip) until it opens', async () => {
    const f = await fleet(2);
    const opensAt = Math.floor(app.clock.now() / 60_000) * 60_000 + 2 * 3600_000;
    const cron = dailyAt(opensAt, 'Asia/Tokyo');
    const windows = [{ cron, duration_seconds: 3600, time_zone: 'Asia/Tokyo' }];
    const id = await plan(f, { windows });
    let shown = await show(f.tenant.name, id);
    assert.deepEqual(
      [shown.windows, shown.window_open, shown.next_window_at, shown.window_closes_at],
      [windows, false, new Date(opensAt).toISOString(), null],
    );
    assert.equal(await next(f, f.macs[0]), null, 'outside every window: the documented empty answer');
    assert.equal((await show(f.tenant.name, id)).devices.offered, 0);

    // A DDI device of the same kind of rollout: offered the download, told to skip the installation.
    const ddi = await ddiDevice(app, bearer, `ddi-win-${Date.now()}`, 'win-1');
    const ddiId = await ddi.rollOut({ windows });
    const closed = await ddi.deployment();
    assert.equal(closed.status, 200, closed.text);
    assert.deepEqual((closed.body as Deployment).deployment.download, 'forced');
    assert.deepEqual((closed.body as Deployment).deployment.update, 'skip');
    assert.deepEqual((closed.body as Deployment).deployment.maintenanceWindow, 'unavailable');
    const closedHref = ddi.lastHref;

    // Two hours on, the window is open: both are offered the installation.
    app.clock.advance(2 * 3600 + 60);
    f.token = await app.login(f.tenant);
    shown = await show(f.tenant.name, id);
    assert.deepEqual(
      [shown.window_open, shown.window_closes_at, shown.next_window_at],
      [true, new Date(opensAt + 3600_000).toISOString(), new Date(opensAt + 24 * 3600_000).toISOString()],
    );
    assert.equal(await next(f, f.macs[0]), String(id));
    const open = await ddi.deployment();
    assert.deepEqual(
      [(open.body as Deployment).deployment.update, (open.body as Deployment).deployment.maintenanceWindow],
      ['forced', 'available'],
    );
    assert.notEqual(ddi.lastHref, closedHref, 'the deploymentBase link changes when the window opens');
    assert.equal(typeof ddiId, 'number');

    // After the window closed again, the device not yet offered gets nothing.
    app.clock.advance(3600);
    f.token = await app.login(f.tenant);
    assert.equal(await next(f, f.macs[1]), null);
  });

  it('a window that opened a minute ago offers at once; a rollout without windows is always open', async () => {
    const f = await fleet(1);
    const cron = dailyAt(app.clock.now() - 60_000, 'Asia/Tokyo');
    const id = await plan(f, { windows: [{ cron, duration_seconds: 3600, time_zone: 'Asia/Tokyo' }] });
    assert.equal((await show(f.tenant.name, id)).window_open, true);
    assert.equal(await next(f, f.macs[0]), String(id));

    const g = await fleet(1);
    const plain = await show(g.tenant.name, await plan(g));
    assert.deepEqual([plain.windows, plain.window_open, plain.next_window_at, plain.ramp], [[], true, null, null]);
  });

  it('a ramp of 2 a minute offers exactly 2 of 5 asking devices in the minute; the others get it in a later minute', async () => {
    // Start of a minute, so the five polls fall in one.
    app.clock.ms = Math.ceil(app.clock.now() / 60_000) * 60_000 + 1000;
    const f = await fleet(5);
    const id = await plan(f, {
      ramp: { base_per_minute: 2, increment_factor: 2, increment_every: { confirmed: 100 }, maximum_per_minute: 10 },
    });
    const first = await Promise.all(f.macs.map((mac) => next(f, mac)));
    assert.equal(first.filter((answer) => answer === String(id)).length, 2, JSON.stringify(first));
    assert.equal(first.filter((answer) => answer === null).length, 3);
    const offered = f.macs.filter((_, i) => first[i] !== null);
    let shown = await show(f.tenant.name, id);
    assert.deepEqual([shown.devices.offered, shown.devices.pending], [2, 3]);
    assert.deepEqual(shown.ramp, { base_per_minute: 2, increment_factor: 2, increment_every: { confirmed: 100 }, maximum_per_minute: 10 });
    // Devices already offered keep being offered; the minute's allowance stays spent for the rest.
    for (const mac of offered) assert.equal(await next(f, mac), String(id));
    for (const mac of f.macs.filter((m) => !offered.includes(m))) assert.equal(await next(f, mac), null);
    const counted = await app.database.query<{ used: number | string }>('SELECT used FROM rollout_ramp_minute WHERE rollout_id = $1', [id]);
    assert.deepEqual(
      counted.map((row) => Number(row.used)),
      [2],
    );

    app.clock.advance(60);
    const second = await Promise.all(f.macs.map((mac) => next(f, mac)));
    assert.equal(second.filter((answer) => answer === String(id)).length, 4);
    shown = await show(f.tenant.name, id);
    assert.deepEqual([shown.devices.offered, shown.devices.pending], [4, 1]);
  });

  it('two instances on one database share the ramp’s allowance: 2 a minute in all, whichever instance devices ask', async () => {
    const second = await startInstance(app.database);
    try {
      app.clock.ms = Math.ceil(app.clock.now() / 60_000) * 60_000 + 1000;
      second.clock.ms = app.clock.ms;
      const f = await fleet(6);
      const id = await plan(f, {
        ramp: { base_per_minute: 2, increment_factor: 2, increment_every: { offered: 100 }, maximum_per_minute: 10 },
      });
      const vc = [app.urls.vc, second.config.urls.vc.href.replace(/\/$/, '')];
      const answers = await Promise.all(
        f.macs.map(async (mac, i) => {
          const answer = await post(`${vc[i % 2]}/api/device/next/rollout`, { mac, firmware_version: '1.0.0' }, f.token);
          assert.equal(answer.status, 200, answer.text);
          return (answer.body as { rollout_id?: string }).rollout_id ?? null;
        }),
      );
      assert.equal(answers.filter((answer) => answer === String(id)).length, 2, JSON.stringify(answers));
    } finally {
      await second.server.close();
    }
  });

  it('refuses a bad cron, an unknown time zone and an out-of-range ramp with a 400 naming the field', async () => {
    const f = await fleet(1);
    const create = (extra: Record<string, unknown>): Promise<Answer> =>
      operator('POST', `/tenants/${f.tenant.name}/rollouts`, {
        name: 'bad',
        firmware_id: f.firmwareId,
        group: 'fleet',
        start_date: '2020-01-01 00:00:00',
        ...extra,
      });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ windows: [{ cron: '0 25 * * *', duration_seconds: 60, time_zone: 'UTC' }] }, 'windows', /^windows\[0\]\.cron is not a valid/],
      [{ windows: [{ cron: '0 2 * *', duration_seconds: 60, time_zone: 'UTC' }] }, 'windows', /^windows\[0\]\.cron must be .* 5 fields/],
      [{ windows: [{ cron: '0 2 * * *', duration_seconds: 60, time_zone: 'Asia/Atlantis' }] }, 'windows', /^windows\[0\]\.time_zone/],
      [{ windows: [{ cron: '0 2 * * *', duration_seconds: 0, time_zone: 'UTC' }] }, 'windows', /^windows\[0\]\.duration_seconds/],
      [
        { ramp: { base_per_minute: 0, increment_factor: 2, increment_every: { offered: 5 }, maximum_per_minute: 10 } },
        'ramp',
        /^ramp\.base_per_minute/,
      ],
      [
        { ramp: { base_per_minute: 5, increment_factor: 9, increment_every: { offered: 5 }, maximum_per_minute: 10 } },
        'ramp',
        /^ramp\.increment_factor/,
      ],
      [
        { ramp: { base_per_minute: 5, increment_factor: 2, increment_every: { sent: 5 }, maximum_per_minute: 10 } },
        'ramp',
        /^ramp\.increment_every/,
      ],
      [
        { ramp: { base_per_minute: 5, increment_factor: 2, increment_every: { offered: 5 }, maximum_per_minute: 4 } },
        'ramp',
        /^ramp\.maximum_per_minute/,
      ],
    ];
    for (const [extra, field, message] of cases) {
      const answer = await create(extra);
      assert.equal(answer.status, 400, JSON.stringify(extra));
      const body = answer.body as { message: string; field: string };
      assert.equal(body.field, field, JSON.stringify(extra));
      assert.match(body.message, message);
    }
  });

  it('the CLI plans windows and a ramp and shows them', async () => {
    const f = await fleet(1);
    const created = await runCli(
      app,
      'rollout',
      'create',
      '--tenant',
      f.tenant.name,
      '--name',
      'at night',
      '--firmware',
      String(f.firmwareId),
      '--group',
      'fleet',
      '--start',
      '2020-01-01 00:00:00',
      '--window',
      '0 2 * * *',
      '--window',
      '0 14 * * 6',
      '--window-duration',
      '3h',
      '--tz',
      'Europe/Berlin',
      '--ramp-base',
      '10',
      '--ramp-factor',
      '2',
      '--ramp-every-confirmed',
      '100',
      '--ramp-max',
      '1000',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const body = JSON.parse(created.stdout) as WindowedRollout;
    assert.deepEqual(body.windows, [
      { cron: '0 2 * * *', duration_seconds: 10800, time_zone: 'Europe/Berlin' },
      { cron: '0 14 * * 6', duration_seconds: 10800, time_zone: 'Europe/Berlin' },
    ]);
    assert.deepEqual(body.ramp, {
      base_per_minute: 10,
      increment_factor: 2,
      increment_every: { confirmed: 100 },
      maximum_per_minute: 1000,
    });
    const shown = await runCli(app, 'rollout', 'show', String(body.id), '--tenant', f.tenant.name);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /maintenance windows: "0 2 \* \* \*" Europe\/Berlin for 10800s; "0 14 \* \* 6" Europe\/Berlin for 10800s; /);
    assert.match(shown.stdout, /ramp: 10 new offers a minute, ×2 every 100 confirmed, at most 1000 a minute/);
    const bad = await runCli(
      app,
      'rollout',
      'create',
      '--tenant',
      f.tenant.name,
      '--name',
      'x',
      '--firmware',
      String(f.firmwareId),
      '--group',
      'fleet',
      '--start',
      '2020-01-01 00:00:00',
      '--window',
      '0 2 * * *',
      '--window-duration',
      '1h',
      '--tz',
      'Nowhere/City',
    );
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /windows\[0\]\.time_zone must be an IANA time zone/);
  });
});

/**
 * A tenant with firmware 2.0.0 of type `board` and one DDI device `controllerId`; `rollOut` starts a
 * rollout of it to the device, `deployment` reads the device's root resource and follows its
 * deploymentBase link (kept in `lastHref`).
 */
async function ddiDevice(app: TestApp, bearer: string, tenant: string, controllerId: string) {
  const operator = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const answer = await request(method, `${app.urls.operator}${path}`, { bearer, body });
    assert.ok(answer.status === 200 || answer.status === 201, `${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body as Record<string, unknown>;
  };
  await operator('POST', '/tenants', { name: tenant });
  const published = await request(
    'POST',
    `${app.urls.operator}/tenants/${tenant}/firmware?version=2.0.0&device_type=board&filename=fw.swu`,
    {
      bearer,
      rawBody: Buffer.from(`image of ${tenant}`),
      headers: { 'content-type': 'application/octet-stream' },
    },
  );
  assert.equal(published.status, 201, published.text);
  const firmwareId = (published.body as { id: number }).id;
  await operator('POST', `/tenants/${tenant}/device-keys`, { device_type: 'board' });
  const created = await operator('POST', `/tenants/${tenant}/devices`, { controller_id: controllerId, device_type: 'board' });
  const authorization = `TargetToken ${created.target_token as string}`;
  const device = {
    lastHref: '',
    rollOut: async (extra: Record<string, unknown>): Promise<number> => {
      await operator('POST', `/tenants/${tenant}/groups`, { name: 'ddi', macs: [controllerId] });
      const rollout = await operator('POST', `/tenants/${tenant}/rollouts`, {
        name: 'ddi',
        firmware_id: firmwareId,
        group: 'ddi',
        start_date: '2020-01-01 00:00:00',
        ...extra,
      });
      await operator('POST', `/tenants/${tenant}/rollouts/${String(rollout.id)}/start`);
      return rollout.id as number;
    },
    deployment: async (): Promise<Answer> => {
      const root = await request('GET', `${app.urls.ddi}/${tenant}/controller/v1/${controllerId}`, { headers: { authorization } });
      assert.equal(root.status, 200, root.text);
      const href = (root.body as { _links: { deploymentBase?: { href: string } } })._links.deploymentBase?.href;
      assert.ok(href, `a deploymentBase link: ${root.text}`);
      device.lastHref = href;
      return request('GET', href, { headers: { authorization } });
    },
  };
  return device;
}
