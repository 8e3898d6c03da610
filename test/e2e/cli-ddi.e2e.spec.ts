import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, startTestApp, type TestApp, type TestTenant } from '#test/support/harness.js';
import { runCli } from '#test/support/operator.js';

/**
 * The CLI's side of hawkBit DDI devices (docs/hawkbit-devices.md), run as a real process on the
 * database of a running server: devices with target tokens, their rotation, an import of a hawkBit
 * server's targets, the tenant's polling interval, a rollout's DDI action type, firmware that keeps
 * its file name. The server answers the devices the CLI made.
 */
describe('firmledger CLI for hawkBit DDI devices', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let dir: string;

  /** Runs the CLI with `--json` and parses what it printed; fails on a non-zero exit. */
  const json = async <T>(...args: string[]): Promise<T> => {
    const outcome = await runCli(app, ...args, '--json');
    assert.equal(outcome.code, 0, `${args.join(' ')}: ${outcome.stderr}`);
    return JSON.parse(outcome.stdout) as T;
  };

  const root = (controllerId: string, authorization: string) =>
    request('GET', `${app.urls.ddi}/${tenant.name}/controller/v1/${controllerId}`, { headers: { authorization } });

  before(async () => {
    app = await startTestApp();
    tenant = await app.createTenant(`cli-ddi-${Date.now()}`, 'board');
    dir = await mkdtemp(join(tmpdir(), 'firmledger-cli-ddi-'));
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('device-key create --ddi-gateway makes a gateway token, the list shows it, device-key ddi-gateway turns it on and off', async () => {
    const gw = await app.createTenant(`cli-ddi-gw-${Date.now()}`, 'board');
    const poll = (authorization: string) =>
      request('GET', `${app.urls.ddi}/${gw.name}/controller/v1/cli-gw-1`, { headers: { authorization } });
    const plain = await json<{ id: number; key: string; ddi_gateway: boolean }>(
      'device-key',
      'create',
      '--tenant',
      gw.name,
      '--type',
      'board',
    );
    assert.equal(plain.ddi_gateway, false);
    assert.equal((await poll(`GatewayToken ${plain.key}`)).status, 401, 'a plain key is no gateway token');
    const created = await runCli(app, 'device-key', 'create', '--tenant', gw.name, '--type', 'board', '--ddi-gateway');
    assert.equal(created.code, 0, created.stderr);
    const [, id, key] = /^device key (\d+) \(board, DDI gateway token\): (\w+)$/m.exec(created.stdout) ?? [];
    assert.ok(key, created.stdout);
    assert.equal((await poll(`GatewayToken ${key}`)).status, 200, 'registered on its first poll');
    const listed = await runCli(app, 'device-key', 'list', '--tenant', gw.name);
    assert.match(listed.stdout, /\bddi_gateway\b/);
    assert.match(listed.stdout, new RegExp(`^${id}\\s+${key}\\s+board\\s+false\\s+false\\s+true\\s+false\\s`, 'm'), listed.stdout);
    assert.match(listed.stdout, new RegExp(`^${plain.id}\\s+${plain.key}\\s+board\\s+false\\s+false\\s+false\\s`, 'm'), listed.stdout);
    const off = await runCli(app, 'device-key', 'ddi-gateway', id, 'off', '--tenant', gw.name);
    assert.equal(off.stdout.trim(), `device key ${id}: not a DDI gateway token`, off.stderr);
    assert.equal((await poll(`GatewayToken ${key}`)).status, 401, 'no longer a gateway token');
    const on = await json<{ ddi_gateway: boolean }>('device-key', 'ddi-gateway', plain.key, 'on', '--tenant', gw.name);
    assert.equal(on.ddi_gateway, true, 'named by its key');
    assert.equal((await poll(`GatewayToken ${plain.key}`)).status, 200);
  });

  it('device create prints the target token once, and the device polls with it', async () => {
    const created = await json<{ mac: string; protocol: string; target_token: string }>(
      'device',
      'create',
      '--tenant',
      tenant.name,
      '--controller-id',
      'cli-pump-1',
      '--device-type',
      'board',
    );
    assert.deepEqual([created.mac, created.protocol], ['cli-pump-1', 'ddi']);
    assert.match(created.target_token, /^[A-Za-z0-9_-]{32}$/);
    assert.equal((await root('cli-pump-1', `TargetToken ${created.target_token}`)).status, 200);
    const listed = await json<{ mac: string; has_target_token: boolean }[]>('device', 'list', '--tenant', tenant.name);
    assert.deepEqual(listed, [{ ...listed[0], mac: 'cli-pump-1', has_target_token: true }]);
    assert.ok(!JSON.stringify(listed).includes(created.target_token), 'the token is never shown again');
    const human = await runCli(app, 'device', 'show', 'cli-pump-1', '--tenant', tenant.name);
    assert.match(human.stdout, /^device cli-pump-1 "cli-pump-1": ddi, board, version \(none reported\)$/m);
  });

  it('device rotate-token replaces the token: the old one is refused at once', async () => {
    const first = await json<{ target_token: string }>(
      'device',
      'create',
      '--tenant',
      tenant.name,
      '--controller-id',
      'cli-pump-2',
      '--device-type',
      'board',
    );
    const rotated = await json<{ target_token: string }>('device', 'rotate-token', 'cli-pump-2', '--tenant', tenant.name);
    assert.notEqual(rotated.target_token, first.target_token);
    assert.equal((await root('cli-pump-2', `TargetToken ${first.target_token}`)).status, 401);
    assert.equal((await root('cli-pump-2', `TargetToken ${rotated.target_token}`)).status, 200);
  });

  it('device import takes a hawkBit server’s targets with their security tokens, and skips those the tenant has', async () => {
    const file = join(dir, 'targets.json');
    const targets = {
      content: [
        { controllerId: 'hb-1', name: 'Pump one', securityToken: '4e1f7c0d3b2a59e8', updateStatus: 'in_sync' },
        { controllerId: 'hb-2', name: 'Pump two' },
      ],
      total: 2,
      size: 2,
    };
    await writeFile(file, JSON.stringify(targets));
    const imported = await json<{ created: { mac: string; name: string; target_token: string }[]; skipped: string[] }>(
      'device',
      'import',
      file,
      '--tenant',
      tenant.name,
      '--device-type',
      'board',
    );
    assert.deepEqual(
      imported.created.map((d) => [d.mac, d.name]),
      [
        ['hb-1', 'Pump one'],
        ['hb-2', 'Pump two'],
      ],
    );
    assert.equal(imported.created[0].target_token, '4e1f7c0d3b2a59e8', 'the security token it had is kept');
    assert.equal((await root('hb-1', 'TargetToken 4e1f7c0d3b2a59e8')).status, 200, 'the device needs no new credential');
    assert.equal((await root('hb-2', `TargetToken ${imported.created[1].target_token}`)).status, 200);
    const again = await json<{ created: unknown[]; skipped: string[] }>(
      'device',
      'import',
      file,
      '--tenant',
      tenant.name,
      '--device-type',
      'board',
    );
    assert.deepEqual(again, { created: [], skipped: ['hb-1', 'hb-2'] });

    await writeFile(file, JSON.stringify([{ name: 'no id' }]));
    const bad = await runCli(app, 'device', 'import', file, '--tenant', tenant.name, '--device-type', 'board');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /target 1 of .* has no controllerId/);
  });

  it('tenant set-ddi-polling sets what the devices are told; a rollout takes its DDI action type; firmware keeps its file name', async () => {
    const token = (
      await json<{ target_token: string }>(
        'device',
        'create',
        '--tenant',
        tenant.name,
        '--controller-id',
        'cli-pump-3',
        '--device-type',
        'board',
      )
    ).target_token;
    const set = await json<{ ddi_polling_sleep: string }>('tenant', 'set-ddi-polling', tenant.name, '00:00:30');
    assert.equal(set.ddi_polling_sleep, '00:00:30');
    const refused = await runCli(app, 'tenant', 'set-ddi-polling', tenant.name, '00:00:00');
    assert.notEqual(refused.code, 0);

    const file = join(dir, 'update-2.0.0.swu');
    await writeFile(file, 'an update for the pumps');
    const firmware = await json<{ id: number; filename: string }>(
      'firmware',
      'publish',
      file,
      '--tenant',
      tenant.name,
      '--version',
      '2.0.0',
      '--type',
      'board',
    );
    assert.equal(firmware.filename, 'update-2.0.0.swu');
    await json('group', 'create', 'cli-pumps', '--tenant', tenant.name);
    await json('group', 'add', 'cli-pumps', 'cli-pump-3', '--tenant', tenant.name);
    const rollout = await json<{ id: number; ddi_action_type: string }>(
      'rollout',
      'create',
      '--tenant',
      tenant.name,
      '--name',
      'soft',
      '--firmware',
      String(firmware.id),
      '--group',
      'cli-pumps',
      '--priority',
      '1',
      '--start',
      '2020-01-01 00:00:00',
      '--ddi-action-type',
      'soft',
    );
    assert.equal(rollout.ddi_action_type, 'soft');
    await json('rollout', 'start', String(rollout.id), '--tenant', tenant.name);

    const answer = (await root('cli-pump-3', `TargetToken ${token}`)).body as {
      config: { polling: { sleep: string } };
      _links: { deploymentBase: { href: string } };
    };
    assert.equal(answer.config.polling.sleep, '00:00:30');
    const deployment = (await request('GET', answer._links.deploymentBase.href, { headers: { authorization: `TargetToken ${token}` } }))
      .body as {
      deployment: { download: string; update: string; chunks: { artifacts: { filename: string }[] }[] };
    };
    assert.deepEqual([deployment.deployment.download, deployment.deployment.update], ['attempt', 'attempt']);
    assert.equal(deployment.deployment.chunks[0].artifacts[0].filename, 'update-2.0.0.swu');
    const history = await runCli(app, 'rollout', 'history', 'cli-pump-3', '--tenant', tenant.name);
    assert.match(history.stdout, /rollout \d+ "soft" \(active\) to 2\.0\.0: offered/, history.stderr);
  });
});
