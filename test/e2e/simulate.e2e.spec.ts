import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fateOf } from '#src/cli/simulate/device-cycle.js';
import { simulate, simulatedMacs } from '#src/cli/simulate/simulator.js';
import { RolloutProgressService } from '#src/domain/rollout/rollout-progress.service.js';
import { FirmwareDownloadRepository } from '#src/domain/delivery/firmware-download.repository.js';
import { startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';

describe('firmledger simulate (devices that download as the field SDKs do)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  const macs = simulatedMacs('02:5E:ED', 6);

  before(async () => {
    app = await startTestApp();
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
});
