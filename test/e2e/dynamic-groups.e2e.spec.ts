import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, request, startTestApp, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';

const run = promisify(execFile);

/** The repository root (this file runs from `dist/test/e2e`): the CLI runs from there. */
const ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * Dynamic groups and device labels (docs/decisions.md §10.3), over HTTP as operators and hawkBit
 * DDI devices speak it, and through the CLI, on both engines: a dynamic group's members are the
 * devices that match its filter now; a rollout to it takes in devices that match after its start.
 */
describe('dynamic groups and device labels (docs/decisions.md §10.3)', () => {
  let app: TestApp;
  let bearer: string;
  let tenant: TestTenant;

  const operator = (method: string, path: string, body?: unknown): Promise<Answer> =>
    request(method, `${app.urls.operator}/tenants/${tenant.name}${path}`, { bearer, body });

  /** Creates a DDI device of `deviceType`; its `TargetToken …` header value. */
  const create = async (controllerId: string, deviceType = 'ESP32'): Promise<string> => {
    const answer = await operator('POST', '/devices', { controller_id: controllerId, device_type: deviceType });
    assert.equal(answer.status, 201, answer.text);
    return `TargetToken ${(answer.body as { target_token: string }).target_token}`;
  };

  const ddi = (method: string, device: string, token: string, suffix = '', body?: unknown): Promise<Answer> =>
    request(method, `${app.urls.ddi}/${tenant.name}/controller/v1/${device}${suffix}`, { headers: { authorization: token }, body });

  /** The device reports its attributes (DDI configData, merged). */
  const report = async (device: string, token: string, data: Record<string, string>): Promise<void> => {
    const answer = await ddi('PUT', device, token, '/configData', { data });
    assert.equal(answer.status, 200, answer.text);
  };

  /** Whether the device's DDI root offers it a deployment. */
  const offered = async (device: string, token: string): Promise<boolean> => {
    const root = await ddi('GET', device, token);
    assert.equal(root.status, 200, root.text);
    return 'deploymentBase' in (root.body as { _links: Record<string, unknown> })._links;
  };

  const members = async (group: string): Promise<string[]> => {
    const answer = await operator('GET', `/groups/${group}`);
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as { member_macs: { items: { mac: string }[] } }).member_macs.items.map((m) => m.mac);
  };

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('dynamic-groups-spec');
    tenant = await app.createTenant(undefined, 'ESP32');
  });
  after(() => app.close());

  it('a rollout to a dynamic group takes in devices that match after its start, and lets go of those that stop matching', async () => {
    const tokens: Record<string, string> = {};
    for (const [device, type, rev] of [
      ['rev3-a', 'ESP32', '3'],
      ['rev2-b', 'ESP32', '2'],
      ['esp8266-c', 'ESP8266', '3'],
    ] as const) {
      tokens[device] = await create(device, type);
      await report(device, tokens[device], { hw_rev: rev });
    }
    const group = await operator('POST', '/groups', { name: 'rev3', filter: 'device_type = ESP32 and attribute.hw_rev = 3' });
    assert.equal(group.status, 201, group.text);
    assert.deepEqual(
      [(group.body as { members: number }).members, (group.body as { filter: string }).filter],
      [1, 'device_type = ESP32 and attribute.hw_rev = 3'],
    );
    assert.deepEqual(await members('rev3'), ['rev3-a']);

    const firmware = await app.publishFirmware(tenant, '2.0.0', Buffer.from('esp32 image 2.0.0 for a dynamic group'), 'ESP32');
    const created = await operator('POST', '/rollouts', {
      name: 'rev3 to 2.0.0',
      firmware_id: firmware.id,
      group: 'rev3',
      start_date: '2020-01-01 00:00:00',
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body as { id: number }).id;
    assert.equal((await operator('POST', `/rollouts/${id}/start`)).status, 200);
    const targeted = async () => ((await operator('GET', `/rollouts/${id}`)).body as { targeted: number }).targeted;
    assert.equal(await targeted(), 1);
    assert.equal(await offered('rev3-a', tokens['rev3-a']), true);
    assert.equal(await offered('rev2-b', tokens['rev2-b']), false);

    // A device registered after the start that matches once it reports its attributes.
    tokens['late-d'] = await create('late-d');
    assert.equal(await offered('late-d', tokens['late-d']), false, 'no hw_rev yet: no match');
    await report('late-d', tokens['late-d'], { hw_rev: '3', serial: 'SN-4' });
    assert.equal(await offered('late-d', tokens['late-d']), true, 'matches now: a target of the last wave');
    // A device whose attributes change to match.
    await report('rev2-b', tokens['rev2-b'], { hw_rev: '3' });
    assert.equal(await offered('rev2-b', tokens['rev2-b']), true);
    assert.equal(await offered('esp8266-c', tokens['esp8266-c']), false, 'another device type never matches');
    assert.equal(await targeted(), 3);
    assert.deepEqual(await members('rev3'), ['late-d', 'rev2-b', 'rev3-a']);

    // A device that stops matching leaves the group and the rollout's targets.
    await report('rev3-a', tokens['rev3-a'], { hw_rev: '4' });
    assert.deepEqual(await members('rev3'), ['late-d', 'rev2-b']);
    assert.equal(await targeted(), 2);

    const added = await operator('POST', '/groups/rev3/members', { macs: ['AC:67:B2:01:02:03'] });
    assert.equal(added.status, 409, 'members of a dynamic group are not set by hand');
  });

  it('labels set by REST (one device and in bulk) feed a group filtered by label', async () => {
    for (const device of ['lab-1', 'field-2', 'field-3']) await create(device);
    const set = await operator('PUT', '/devices/lab-1/labels', { labels: ['site=lab', 'beta'] });
    assert.deepEqual([set.status, set.body], [200, { mac: 'lab-1', labels: ['beta', 'site=lab'] }]);
    const bulk = await operator('POST', '/devices/labels', { devices: ['field-2', 'field-3'], add: ['site=field', 'stage=2'] });
    assert.deepEqual(
      [bulk.status, bulk.body],
      [
        200,
        [
          { mac: 'field-2', labels: ['site=field', 'stage=2'] },
          { mac: 'field-3', labels: ['site=field', 'stage=2'] },
        ],
      ],
    );

    const field = await operator('POST', '/groups', { name: 'field', filter: 'label.site = field and not label.beta' });
    assert.equal(field.status, 201, field.text);
    assert.deepEqual(await members('field'), ['field-2', 'field-3']);
    const lab = await operator('POST', '/groups', { name: 'lab-or-beta', filter: 'label.site ~ la or label.beta' });
    assert.deepEqual(await members((lab.body as { id: number }).id.toString()), ['lab-1']);

    await operator('POST', '/devices/labels', { devices: ['field-3'], remove: ['site'] });
    assert.deepEqual(await members('field'), ['field-2'], 'a label removed: the device leaves');
    await operator('POST', '/devices/labels', { devices: ['lab-1'], add: ['site=field'], remove: ['beta'] });
    assert.deepEqual(await members('field'), ['field-2', 'lab-1'], 'labels changed: the device joins');
    const detail = await operator('GET', '/devices/lab-1');
    assert.deepEqual((detail.body as { labels: string[] }).labels, ['site=field']);

    const filter = await operator('PUT', '/groups/field/filter', { filter: 'label.stage = 2' });
    assert.deepEqual([filter.status, (filter.body as { members: number }).members], [200, 2]);
    assert.deepEqual(await members('field'), ['field-2', 'field-3'], 'the filter changed: members recomputed');

    const badLabel = await operator('POST', '/devices/labels', { devices: ['lab-1'], add: ['site='] });
    assert.deepEqual([badLabel.status, (badLabel.body as { field: string }).field], [400, 'add']);
    const unknown = await operator('PUT', '/devices/nobody/labels', { labels: ['a'] });
    assert.equal(unknown.status, 404);
  });

  it('a filter that does not parse is a 400 naming filter and the column; nothing is created', async () => {
    for (const [filter, column] of [
      ['device_type = ', 15],
      ['colour = red', 1],
      ['(name = a', 10],
    ] as const) {
      const answer = await operator('POST', '/groups', { name: 'bad', filter });
      assert.equal(answer.status, 400, answer.text);
      const body = answer.body as { field: string; message: string };
      assert.equal(body.field, 'filter');
      assert.match(body.message, new RegExp(`at column ${column}\\)$`));
      assert.doesNotMatch(answer.text, /SELECT|stack/);
    }
    assert.equal((await operator('GET', '/groups/bad')).status, 404);
  });

  it('the CLI labels devices and creates dynamic groups', async () => {
    const database = await createTestDatabase();
    const cli = async (...args: string[]) => {
      const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], ...database.env };
      try {
        const { stdout } = await run(process.execPath, ['bin/firmledger.js', ...args], { cwd: ROOT, env, timeout: 60_000 });
        return { code: 0, stdout, stderr: '' };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    try {
      assert.equal((await cli('init')).code, 0);
      assert.equal((await cli('tenant', 'create', 'acme')).code, 0);
      for (const id of ['pump-1', 'pump-2']) {
        const made = await cli('device', 'create', '--tenant', 'acme', '--controller-id', id, '--device-type', 'ESP32');
        assert.equal(made.code, 0, made.stderr);
      }
      const labelled = await cli('device', 'label', 'pump-1', '--add', 'site=lab', '--add', 'beta', '--tenant', 'acme', '--json');
      assert.equal(labelled.code, 0, labelled.stderr);
      assert.deepEqual(JSON.parse(labelled.stdout), [{ mac: 'pump-1', labels: ['beta', 'site=lab'] }]);
      const text = await cli('device', 'label', 'pump-2', '--add', 'site=field', '--tenant', 'acme');
      assert.equal(text.stdout, 'pump-2: site=field\n');

      const group = await cli(
        'group',
        'create',
        'lab',
        '--filter',
        'device_type = ESP32 and label.site = lab',
        '--tenant',
        'acme',
        '--json',
      );
      assert.equal(group.code, 0, group.stderr);
      const body = JSON.parse(group.stdout) as { name: string; members: number; filter: string };
      assert.deepEqual([body.name, body.members, body.filter], ['lab', 1, 'device_type = ESP32 and label.site = lab']);
      const shown = await cli('device', 'show', 'pump-1', '--tenant', 'acme');
      assert.match(shown.stdout, /^groups: lab$/m);
      assert.match(shown.stdout, /^labels: beta, site=lab$/m);

      const bad = await cli('group', 'create', 'bad', '--filter', 'label.site =', '--tenant', 'acme');
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /filter: .*at column 13/);
    } finally {
      await database.drop();
    }
  });
});
