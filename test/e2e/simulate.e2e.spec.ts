import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fateOf } from '#src/cli/simulate/device-cycle.js';
import { simulate, simulatedMacs, type SimulateOptions } from '#src/cli/simulate/simulator.js';
import { DeviceStateService } from '#src/domain/rollout/device-state.service.js';
import { RolloutProgressService } from '#src/domain/rollout/rollout-progress.service.js';
import { FirmwareDownloadRepository } from '#src/domain/delivery/firmware-download.repository.js';
import { startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { rolloutDriver, type Fleet } from '#test/support/rollouts.js';

describe('firmledger simulate (devices that download as the field SDKs do)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let bearer: string;
  const macs = simulatedMacs('02:5E:ED', 6);
  // A driver's macs are 02:<xx>:00 followed by the three bytes of 1, 2, …: the simulator's with prefix
  // 02:<xx>:00. One driver per fleet, so each fleet starts at device 1.
  const driver = (prefix: string) => rolloutDriver(() => ({ app, bearer }), prefix);
  const optionsFor = (f: Fleet, extra: Partial<SimulateOptions> = {}): SimulateOptions => ({
    authUrl: app.urls.auth,
    vcUrl: app.urls.vc,
    bcUrl: app.urls.bc,
    ipfsUrl: app.urls.ipfs,
    customerKey: f.tenant.customerKey,
    deviceKey: f.tenant.deviceKey,
    devices: f.macs.length,
    concurrency: 4,
    macPrefix: f.macs[0].slice(0, 8),
    firmwareVersion: '1.0.0',
    ...extra,
  });

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('simulate-spec');
    tenant = await app.createTenant('simulated fleet', 'ESP32');
    const firmware = await app.publishFirmware(tenant, '2.0.0', randomBytes(300 * 1024));
    await app.createGroup(tenant, 'simulated', macs);
    await app.createRollout(tenant, { firmwareId: firmware.id, group: 'simulated' });
  });
  after(() => app.close());

  it('updates every device through the ledger lookup as POST and the IPFS component, each download the device’s', async () => {
    const summary = await simulate({
      authUrl: app.urls.auth,
      vcUrl: app.urls.vc,
      bcUrl: app.urls.bc,
      ipfsUrl: app.urls.ipfs,
      customerKey: tenant.customerKey,
      deviceKey: tenant.deviceKey,
      devices: macs.length,
      concurrency: 3,
      macPrefix: '02:5E:ED',
      firmwareVersion: '1.0.0',
    });
    assert.deepEqual(
      { updated: summary.updated, failures: summary.failures, examples: summary.failureExamples },
      {
        updated: macs.length,
        failures: {
          login: 0,
          register: 0,
          'next-rollout': 0,
          'ledger-lookup': 0,
          download: 0,
          verify: 0,
          'report-success': 0,
          'report-failure': 0,
          confirm: 0,
        },
        examples: undefined,
      },
    );
    const downloads = app.server.app.get(FirmwareDownloadRepository);
    for (const mac of macs) {
      const [device] = await app.database.query<{ id: number }>('SELECT id FROM device WHERE mac = $1', [mac]);
      assert.equal((await downloads.forDevice(tenant.id, device.id)).length, 1, mac);
    }
  });

  it('--fail-rate and --fallback-rate: the same devices fail or fall back every run, and the rollout sees it', async () => {
    const prefix = '02:5F:ED';
    const fleet = simulatedMacs(prefix, 40);
    const other = await app.createTenant('simulated fates', 'ESP32');
    const firmware = await app.publishFirmware(other, '2.0.0', randomBytes(1024));
    await app.createGroup(other, 'fates', fleet);
    const options = {
      authUrl: app.urls.auth,
      vcUrl: app.urls.vc,
      bcUrl: app.urls.bc,
      ipfsUrl: app.urls.ipfs,
      customerKey: other.customerKey,
      deviceKey: other.deviceKey,
      devices: fleet.length,
      concurrency: 4,
      macPrefix: prefix,
      firmwareVersion: '1.0.0',
      timestampStateDir: null,
      failRate: 0.2,
      fallbackRate: 0.3,
    };
    // First run registers the fleet (nothing to offer yet), so the rollout's start places every device.
    assert.equal((await simulate(options)).upToDate, fleet.length);
    const rollout = await app.createRollout(other, { firmwareId: firmware.id, group: 'fates' });
    const summary = await simulate(options);
    const fates = fleet.map((mac) => fateOf(mac, 0.2, 0.3));
    const count = (fate: string) => fates.filter((f) => f === fate).length;
    assert.deepEqual(
      [summary.updated, summary.fellBack ?? 0, summary.reportedFailure ?? 0],
      [count('ok'), count('fall-back'), count('fail')],
    );
    assert.ok(count('ok') > 0 && count('fall-back') > 0 && count('fail') > 0, 'forty devices meet all three fates');
    const view = await app.server.app.get(RolloutProgressService).get(other.id, rollout.id);
    assert.deepEqual(
      [view.devices.confirmed, view.devices.fell_back, view.devices.failed, view.status],
      [count('ok'), count('fall-back'), count('fail'), 'finished'],
    );
    // A second run: devices run what the server has for them; nothing is offered again.
    const again = await simulate(options);
    assert.equal(again.upToDate, fleet.length);
  });

  it('--rounds: devices a ramp holds back ask again each round and are offered once the minute’s allowance allows', async () => {
    // The ramp counts per minute of the server's clock; the spec's wait moves that clock by the
    // poll interval instead of sleeping. Start of a minute, so each round falls in one minute.
    app.clock.ms = Math.ceil(app.clock.now() / 60_000) * 60_000 + 1000;
    const { fleet, plan, rollout } = driver('6A');
    const f = await fleet(5);
    const id = await plan(f, {
      ramp: { base_per_minute: 2, increment_factor: 2, increment_every: { offered: 100 }, maximum_per_minute: 10 },
    });
    const waits: number[] = [];
    const lines: string[] = [];
    const summary = await simulate(
      optionsFor(f, {
        rounds: 5,
        pollIntervalSeconds: 60,
        wait: async (seconds) => {
          waits.push(seconds);
          app.clock.advance(seconds);
        },
      }),
      undefined,
      (line) => lines.push(line),
    );
    assert.deepEqual(summary.rounds, [
      { round: 1, asked: 5, offered: 2, updated: 2, waiting: 3 },
      { round: 2, asked: 3, offered: 2, updated: 4, waiting: 1 },
      { round: 3, asked: 1, offered: 1, updated: 5, waiting: 0 },
    ]);
    assert.deepEqual(waits, [60, 60], 'waits between rounds only, and no round after every device updated');
    assert.deepEqual([summary.updated, summary.upToDate, summary.devices], [5, 0, 5]);
    assert.deepEqual(lines, [
      'round 1: 2 offered, 2/5 updated so far, 3 still waiting (5 asked)',
      'round 2: 2 offered, 4/5 updated so far, 1 still waiting (3 asked)',
      'round 3: 1 offered, 5/5 updated so far, 0 still waiting (1 asked)',
    ]);
    const shown = await rollout(f, id);
    assert.deepEqual([shown.devices.confirmed, shown.status], [5, 'finished']);
  });

  it('--silent-rate: silent devices download and never report; they stay downloading, are not counted updated, and time out', async () => {
    const { fleet, plan, rollout } = driver('6B');
    const f = await fleet(20);
    const id = await plan(f, { timeouts: { downloading: 60 } });
    const summary = await simulate(optionsFor(f, { silentRate: 0.4 }));
    const fates = f.macs.map((mac) => fateOf(mac, 0, 0, 0.4));
    const silent = fates.filter((fate) => fate === 'silent').length;
    const ok = fates.length - silent;
    assert.ok(silent > 0 && ok > 0, 'twenty devices meet both fates');
    assert.deepEqual(
      [summary.updated, summary.silent, summary.upToDate, summary.rounds],
      [ok, silent, 0, [{ round: 1, asked: 20, offered: 20, updated: ok, waiting: 0 }]],
    );
    let shown = await rollout(f, id);
    assert.deepEqual(
      [shown.devices.confirmed, shown.devices.downloading, shown.status],
      [ok, silent, 'active'],
      JSON.stringify(shown.devices),
    );
    // The states sweep applies the rollout's downloading timeout (docs/decisions.md §10.2).
    app.clock.advance(61);
    await app.server.app.get(DeviceStateService).sweep();
    shown = await rollout(f, id);
    assert.deepEqual([shown.devices.timed_out, shown.devices.downloading, shown.devices.confirmed], [silent, 0, ok]);
  });
});
