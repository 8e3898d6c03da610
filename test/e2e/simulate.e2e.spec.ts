import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { simulate, simulatedMacs } from '#src/cli/simulate/simulator.js';
import { FirmwareDownloadRepository } from '#src/ipfs/firmware-download.repository.js';
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
      timestampStateDir: null,
    });
    assert.deepEqual(
      { updated: summary.updated, failures: summary.failures, examples: summary.failureExamples },
      {
        updated: macs.length,
        failures: { login: 0, register: 0, 'next-rollout': 0, 'ledger-lookup': 0, download: 0, verify: 0, 'report-success': 0 },
        examples: undefined,
      },
    );
    const downloads = app.server.app.get(FirmwareDownloadRepository);
    for (const mac of macs) {
      const [device] = await app.database.query<{ id: number }>('SELECT id FROM device WHERE mac = $1', [mac]);
      assert.equal((await downloads.forDevice(tenant.id, device.id)).length, 1, mac);
    }
  });
});
