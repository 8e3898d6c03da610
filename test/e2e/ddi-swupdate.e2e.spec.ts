import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeTestCertificate } from '#test/support/test-certificates.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, startTestApp, type Answer, type TestApp } from '#test/support/harness.js';
import type { DeviceRolloutBody, RolloutBody } from '#test/support/rollouts.js';
import {
  buildSwu,
  CLIENT_WAIT_MS,
  deviceDir,
  explained,
  startSwupdate,
  until,
  type BuiltSwu,
  type Swupdate,
  type SwupdateOptions,
} from '#test/support/swupdate.js';

/**
 * hawkBit devices update from firmledger with the real client (docs/hawkbit-devices.md): Debian's
 * SWUpdate (suricatta, hawkBit module), configured only with the DDI URL, the tenant, its
 * controller id and a token, on both engines. The tenant's devices poll every second; a "reboot"
 * is a restart with `-c 2` (SWUpdate keeps its update state in memory).
 */
describe('hawkBit DDI with the real SWUpdate client (docs/decisions.md §12)', () => {
  let app: TestApp;
  let bearer: string;
  let work: string;
  const tenant = `swupdate-${Date.now()}`;
  const deviceType = 'ddi-test-board';
  const running = new Set<Swupdate>();
  let gatewayToken: string;

  const operator = (method: string, path: string, body?: unknown): Promise<Answer> =>
    request(method, `${app.urls.operator}${path}`, { bearer, body });

  const ok = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const answer = await operator(method, path, body);
    assert.ok(answer.status === 200 || answer.status === 201, `${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body as Record<string, unknown>;
  };

  /** Publishes a `.swu` as firmware of the test board, keeping its file name; the firmware id. */
  const publish = async (swu: BuiltSwu, version: string): Promise<number> => {
    const answer = await request(
      'POST',
      `${app.urls.operator}/tenants/${tenant}/firmware?version=${version}&device_type=${deviceType}&filename=fw-${version}.swu`,
      {
        bearer,
        rawBody: swu.bytes,
        headers: { 'content-type': 'application/octet-stream' },
      },
    );
    assert.equal(answer.status, 201, answer.text);
    const body = answer.body as { id: number; filename: string };
    assert.equal(body.filename, `fw-${version}.swu`, 'the firmware keeps the .swu file name');
    return body.id;
  };

  /** Creates a device with a target token (as `firmledger device create` does); its token. */
  const createDevice = async (controllerId: string): Promise<string> =>
    (await ok('POST', `/tenants/${tenant}/devices`, { controller_id: controllerId, device_type: deviceType })).target_token as string;

  /** Plans and starts a rollout of `firmwareId` to a new group of `members`; its id. */
  const rollOut = async (name: string, firmwareId: number, members: string[], extra: Record<string, unknown> = {}): Promise<number> => {
    await ok('POST', `/tenants/${tenant}/groups`, { name, macs: members });
    const created = await ok('POST', `/tenants/${tenant}/rollouts`, {
      name,
      firmware_id: firmwareId,
      group: name,
      start_date: '2020-01-01 00:00:00',
      ...extra,
    });
    await ok('POST', `/tenants/${tenant}/rollouts/${String(created.id)}/start`);
    return created.id as number;
  };

  const rollout = async (id: number): Promise<RolloutBody> =>
    (await ok('GET', `/tenants/${tenant}/rollouts/${id}`)) as unknown as RolloutBody;

  /** The device's state in the rollout (with its history), or `undefined` while it has none. */
  const stateIn = async (controllerId: string, rolloutId: number): Promise<DeviceRolloutBody | undefined> => {
    const answer = await operator('GET', `/tenants/${tenant}/devices/${controllerId}/rollouts`);
    if (answer.status !== 200) return undefined;
    return (answer.body as DeviceRolloutBody[]).find((row) => row.rollout_id === rolloutId);
  };

  /** The SWUpdate started last for each controller id (its output names what went wrong when a wait times out). */
  const clients = new Map<string, Swupdate>();

  /**
   * Waits until the device is in `state` in the rollout; its state row. On time-out the error
   * names the state last seen and SWUpdate's last lines.
   */
  const reaches = (controllerId: string, rolloutId: number, state: string, timeoutMs = CLIENT_WAIT_MS): Promise<DeviceRolloutBody> => {
    let last: DeviceRolloutBody | undefined;
    const wait = until(
      `${controllerId} ${state} in rollout ${rolloutId}`,
      async () => {
        last = await stateIn(controllerId, rolloutId);
        return last?.state === state ? last : undefined;
      },
      timeoutMs,
    );
    return explained(clients.get(controllerId), wait, () => `last seen: ${last ? JSON.stringify(last.history.slice(-3)) : 'no state'}`);
  };

  /** Starts SWUpdate as device `controllerId` in its own work directory under the spec's. */
  const device = (controllerId: string, options: Partial<SwupdateOptions>): Swupdate => {
    const swupdate = startSwupdate({
      workDir: deviceDir(work, controllerId, work),
      url: app.urls.ddi,
      tenant,
      controllerId,
      logFile: join(work, `${controllerId}.log`),
      ...options,
    });
    running.add(swupdate);
    clients.set(controllerId, swupdate);
    return swupdate;
  };

  const stop = async (swupdate: Swupdate): Promise<void> => {
    await swupdate.stop();
    running.delete(swupdate);
  };

  /** Installs with SWUpdate, then "reboots" it on the new image (`-c 2`); resolves once the device is confirmed. */
  const update = async (controllerId: string, rolloutId: number, credential: Partial<SwupdateOptions>): Promise<void> => {
    const first = device(controllerId, credential);
    await reaches(controllerId, rolloutId, 'installed');
    await stop(first);
    const rebooted = device(controllerId, { ...credential, confirm: 2 });
    await reaches(controllerId, rolloutId, 'confirmed');
    await stop(rebooted);
  };

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('ddi-swupdate-spec');
    work = mkdtempSync(join(tmpdir(), 'firmledger-swupdate-'));
    await ok('POST', '/tenants', { name: tenant });
    await ok('PUT', `/tenants/${tenant}/ddi-polling`, { sleep: '00:00:01' });
    gatewayToken = (await ok('POST', `/tenants/${tenant}/device-keys`, { device_type: deviceType, ddi_gateway: true })).key as string;
  });

  after(async () => {
    await Promise.all([...running].map((swupdate) => swupdate.stop()));
    await app.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('takes a whole update with its target token: downloading, installed, then confirmed after its reboot', async () => {
    const swu = buildSwu(work, 'whole', '1.1.0');
    const firmwareId = await publish(swu, '1.1.0');
    const token = await createDevice('pump-1');
    const rolloutId = await rollOut('whole', firmwareId, ['pump-1']);

    const first = device('pump-1', { targetToken: token, identify: { serial: 'SN-0001', hwRevision: '1.0' } });
    const installed = await reaches('pump-1', rolloutId, 'installed');
    assert.deepEqual(
      installed.history.map((h) => h.state),
      ['pending', 'offered', 'downloading', 'installed'],
      'offered by the root answer, downloading once it fetched the artifact, installed when it reported installing',
    );
    const payload = join(work, 'pump-1', 'target', 'whole.bin');
    assert.ok(existsSync(payload), 'SWUpdate wrote the image’s payload');
    assert.match(readFileSync(payload, 'utf8'), /^firmware 1\.1\.0 of whole/);
    await stop(first);

    const rebooted = device('pump-1', { targetToken: token, confirm: 2 });
    await reaches('pump-1', rolloutId, 'confirmed');
    await stop(rebooted);
    const shown = await ok('GET', `/tenants/${tenant}/devices/pump-1`);
    assert.equal(shown.firmware_version, '1.1.0', 'a confirmed device runs the rollout’s version');
    assert.equal(shown.protocol, 'ddi');
    assert.deepEqual(shown.attributes, { hwRevision: '1.0', serial: 'SN-0001' }, 'the attributes it sent are kept');
    const done = await rollout(rolloutId);
    assert.equal(done.status, 'finished');
    assert.equal(done.devices['confirmed'], 1);
  });

  it('a failing image ends failed with SWUpdate’s message, and the rollout pauses itself', async () => {
    const swu = buildSwu(work, 'broken', '1.2.0', 'bad-hash');
    const firmwareId = await publish(swu, '1.2.0');
    const token = await createDevice('pump-2');
    await createDevice('pump-2b'); // a second target, which never polls: the rollout is not over when pump-2 fails
    const rolloutId = await rollOut('broken', firmwareId, ['pump-2', 'pump-2b'], { error_threshold: 0 });

    const swupdate = device('pump-2', { targetToken: token });
    const failed = await reaches('pump-2', rolloutId, 'failed');
    await stop(swupdate);
    assert.match(failed.failure_message ?? '', /No suitable \.swu image found/, 'the closing feedback’s details');
    assert.match(failed.failure_message ?? '', /HASH mismatch/, 'the error SWUpdate reported while installing');
    const paused = await rollout(rolloutId);
    assert.equal(paused.status, 'paused');
    assert.match(paused.pause_reason ?? '', /wave 1: 1 of 2 devices failed or fell back/);
  });

  it('registers a device that first polls with a gateway token (a device key flagged ddi_gateway), of the key’s type, and updates it', async () => {
    const swu = buildSwu(work, 'gateway', '1.3.0');
    const firmwareId = await publish(swu, '1.3.0');
    const rolloutId = await rollOut('gateway', firmwareId, ['gw-pump-3']);
    assert.equal((await operator('GET', `/tenants/${tenant}/devices/gw-pump-3`)).status, 404, 'not registered before its first poll');

    await update('gw-pump-3', rolloutId, { gatewayToken });
    const shown = await ok('GET', `/tenants/${tenant}/devices/gw-pump-3`);
    assert.deepEqual([shown.device_type, shown.protocol, shown.has_target_token], [deviceType, 'ddi', false]);
  });

  it('a cancelled rollout reaches the device through cancelAction: it acknowledges, installs nothing, and is pending again', async () => {
    const swu = buildSwu(work, 'cancelled', '1.4.0');
    const firmwareId = await publish(swu, '1.4.0');
    const token = await createDevice('pump-4');
    const rolloutId = await rollOut('cancelled', firmwareId, ['pump-4']);
    // The device was offered the rollout (its root answer named it), then the rollout is cancelled.
    const root = await request('GET', `${app.urls.ddi}/${tenant}/controller/v1/pump-4`, {
      headers: { authorization: `TargetToken ${token}` },
    });
    assert.match(JSON.stringify(root.body), /deploymentBase\/\d+/);
    await reaches('pump-4', rolloutId, 'offered');
    await ok('POST', `/tenants/${tenant}/rollouts/${rolloutId}/cancel`);

    const swupdate = device('pump-4', { targetToken: token });
    const withdrawn = await reaches('pump-4', rolloutId, 'pending');
    await stop(swupdate);
    assert.match(withdrawn.history.at(-1)?.message ?? '', /^cancellation acknowledged/);
    assert.ok(!existsSync(join(work, 'pump-4', 'target', 'cancelled.bin')), 'nothing was installed');
    const after = await request('GET', `${app.urls.ddi}/${tenant}/controller/v1/pump-4`, {
      headers: { authorization: `TargetToken ${token}` },
    });
    const links = Object.keys((after.body as { _links: Record<string, unknown> })._links);
    assert.deepEqual(
      links.filter((rel) => rel !== 'configData'),
      [],
      'nothing left to do (configData is linked until the device sends attributes)',
    );
  });

  it('a wave of SWUpdate devices passes its threshold, then the next wave updates', async () => {
    const swu = buildSwu(work, 'waves', '1.5.0');
    const firmwareId = await publish(swu, '1.5.0');
    const ids = ['wave-a', 'wave-b', 'wave-c', 'wave-d'];
    const tokens = new Map<string, string>();
    for (const id of ids) tokens.set(id, await createDevice(id));
    const rolloutId = await rollOut('waves', firmwareId, ids, { waves: ['50%', '100%'], success_threshold: 1 });
    const [first, second] = [ids.slice(0, 2), ids.slice(2)];

    const all = ids.map((id) => device(id, { targetToken: tokens.get(id)! }));
    await Promise.all(first.map((id) => reaches(id, rolloutId, 'installed')));
    for (const id of second) assert.equal((await stateIn(id, rolloutId))?.state, 'pending', `${id} of wave 2 waits`);
    assert.equal((await rollout(rolloutId)).current_wave, 1);
    await Promise.all(all.slice(0, 2).map(stop));

    const rebooted = first.map((id) => device(id, { targetToken: tokens.get(id)!, confirm: 2 }));
    await Promise.all(first.map((id) => reaches(id, rolloutId, 'confirmed')));
    await Promise.all(rebooted.map(stop));
    assert.equal((await rollout(rolloutId)).current_wave, 2, 'wave 1 passed its threshold: wave 2 started');

    await Promise.all(second.map((id) => reaches(id, rolloutId, 'installed')));
    await Promise.all(all.slice(2).map(stop));
    const secondRebooted = second.map((id) => device(id, { targetToken: tokens.get(id)!, confirm: 2 }));
    await Promise.all(second.map((id) => reaches(id, rolloutId, 'confirmed')));
    await Promise.all(secondRebooted.map(stop));
    const done = await rollout(rolloutId);
    assert.deepEqual([done.status, done.devices['confirmed'], done.waves.map((w) => w.status)], ['finished', 4, ['passed', 'passed']]);
  });
});

describe('hawkBit DDI over TLS with the real SWUpdate client, sharing a listener with the IPFS component under a path prefix', () => {
  let app: TestApp;
  let work: string;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'firmledger-swupdate-tls-'));
    const certificate = await writeTestCertificate(work, 'ddi', '127.0.0.1');
    app = await startTestApp(
      { TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile },
      { IPFS_URL: 'https://127.0.0.1:{port4}', DDI_URL: 'https://127.0.0.1:{port4}/ddi' },
    );
  });
  after(async () => {
    await app.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('takes a whole update over https, its links on the listener and prefix it polled', async () => {
    const bearer = await app.createOperatorToken('ddi-tls-spec');
    const operator = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
      const answer = await request(method, `${app.urls.operator}${path}`, { bearer, body });
      assert.ok(answer.status < 300, `${method} ${path}: ${answer.text}`);
      return answer.body as Record<string, unknown>;
    };
    await operator('POST', '/tenants', { name: 'tls' });
    await operator('PUT', '/tenants/tls/ddi-polling', { sleep: '00:00:01' });
    const swu = buildSwu(work, 'secure', '2.0.0');
    const upload = await request('POST', `${app.urls.operator}/tenants/tls/firmware?version=2.0.0&device_type=board&filename=secure.swu`, {
      bearer,
      rawBody: swu.bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(upload.status, 201, upload.text);
    const token = (await operator('POST', '/tenants/tls/devices', { controller_id: 'tls-pump', device_type: 'board' }))
      .target_token as string;
    await operator('POST', '/tenants/tls/groups', { name: 'tls', macs: ['tls-pump'] });
    const rollout = await operator('POST', '/tenants/tls/rollouts', {
      name: 'tls',
      firmware_id: (upload.body as { id: number }).id,
      group: 'tls',
      start_date: '2020-01-01 00:00:00',
    });
    await operator('POST', `/tenants/tls/rollouts/${String(rollout.id)}/start`);
    let lastState: string | undefined;
    const state = async () => {
      lastState = ((await operator('GET', '/tenants/tls/devices/tls-pump/rollouts')) as unknown as DeviceRolloutBody[]).find(
        (r) => r.rollout_id === rollout.id,
      )?.state;
      return lastState;
    };
    assert.equal(app.urls.ddi.startsWith('https://'), true);

    const options = {
      workDir: deviceDir(work, 'tls-pump', work),
      url: app.urls.ddi,
      tenant: 'tls',
      controllerId: 'tls-pump',
      targetToken: token,
      insecure: true,
    };
    const first = startSwupdate(options);
    try {
      await explained(
        first,
        until('installed over https', async () => (await state()) === 'installed'),
        () => `last seen: ${lastState}`,
      );
    } finally {
      await first.stop();
    }
    const rebooted = startSwupdate({ ...options, confirm: 2 });
    try {
      await explained(
        rebooted,
        until('confirmed over https', async () => (await state()) === 'confirmed'),
        () => `last seen: ${lastState}`,
      );
    } finally {
      await rebooted.stop();
    }
    assert.ok(existsSync(join(work, 'tls-pump', 'target', 'secure.bin')));
  });
});
