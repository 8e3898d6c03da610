import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { LedgerEntry } from '#src/domain/ledger/ledger-entry.entity.js';
import { Subject } from '#src/domain/ledger/ledger.service.js';
import { post, request, startTestApp, TEST_ENGINE, type Answer, type TestApp, type TestTenant } from '#test/support/harness.js';
import { runCli } from '#test/support/operator.js';
import type { DeviceImportRejectedResponse, DeviceImportResponse } from '#src/operator/dto/device-import.dto.js';
import type { DeviceDetailResponse } from '#src/operator/dto/fleet.dto.js';
import type { Page } from '#src/operator/dto/paging.dto.js';

/** The `n`th hardware address of a spec's rows: `02:<prefix>:00:xx:xx:xx`. */
const macOf = (prefix: string, n: number): string =>
  ['02', prefix, '00', (n >> 16) & 255, (n >> 8) & 255, n & 255]
    .map((part) => (typeof part === 'number' ? part.toString(16).padStart(2, '0') : part).toUpperCase())
    .join(':');

/** The spec's own body limit: a few thousand rows fit, a larger body is refused. */
const MAX_BYTES = 512 * 1024;

/**
 * Bulk device import (docs/decisions.md §14) over the operator API and the CLI, on a running
 * server: CSV and NDJSON rows streamed in, checked as one device's creation, all or nothing, bad
 * rows named by line, devices the tenant has skipped, group members added, one ledger entry; the
 * imported devices log in, poll and are offered a rollout like any other.
 */
describe('bulk device import (docs/decisions.md §14)', () => {
  let app: TestApp;
  let bearer: string;
  let tenant: TestTenant;
  let dir: string;

  const importRows = (body: string, type = 'text/csv', tenantName = tenant.name): Promise<Answer> =>
    request('POST', `${app.urls.operator}/tenants/${tenantName}/devices/import`, {
      bearer,
      rawBody: body,
      headers: { 'content-type': type },
    });
  const imported = async (body: string, type = 'text/csv'): Promise<DeviceImportResponse> => {
    const answer = await importRows(body, type);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as DeviceImportResponse;
  };
  const deviceCount = async (query = ''): Promise<number> => {
    const answer = await request('GET', `${app.urls.operator}/tenants/${tenant.name}/devices?per_page=1${query}`, { bearer });
    assert.equal(answer.status, 200, answer.text);
    return (answer.body as Page<unknown>).total;
  };
  const device = async (identifier: string): Promise<DeviceDetailResponse> => {
    const answer = await request('GET', `${app.urls.operator}/tenants/${tenant.name}/devices/${identifier}`, { bearer });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as DeviceDetailResponse;
  };
  const importEntries = async (): Promise<LedgerEntry[]> =>
    app.server.app
      .get(DataSource)
      .getRepository(LedgerEntry)
      .find({ where: { subject: Subject.tenant(tenant.id), type: 'device.imported' }, order: { seq: 'ASC' } });

  before(async () => {
    app = await startTestApp({ DEVICE_IMPORT_MAX_BYTES: String(MAX_BYTES) });
    bearer = await app.createOperatorToken();
    tenant = await app.createTenant(`import-${Date.now()}`, 'board');
    await app.createGroup(tenant, 'hall-b', []);
    dir = await mkdtemp(join(tmpdir(), 'firmledger-import-'));
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('imports CSV rows: devices listed with their fields, group members, one ledger entry; they log in, poll and are offered a rollout', async () => {
    const rows = Array.from(
      { length: 2000 },
      (_, i) => `${macOf('a1', i).toLowerCase().replaceAll(':', '-')},board,1.0.0,pump ${i},${i < 10 ? 'hall-b' : ''},`,
    );
    const body = [
      'mac,device_type,firmware_version,name,group,attributes',
      ...rows,
      `${macOf('a1', 5000)},board,1.0.0,"with, attributes",,"{""serial"":""SN-1"",""rev"":""B""}"`,
    ].join('\n');
    const result = await imported(body);
    assert.deepEqual(result, {
      rows: 2001,
      created: 2001,
      skipped: 0,
      skipped_devices: [],
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    assert.equal(await deviceCount(), 2001);
    assert.equal(await deviceCount('&group=hall-b'), 10);
    const first = await device(macOf('a1', 0));
    assert.deepEqual(
      [
        first.mac,
        first.name,
        first.protocol,
        first.device_type,
        first.firmware_version,
        first.last_seen_at,
        first.groups.map((g) => g.name),
      ],
      [macOf('a1', 0), 'pump 0', 'asvin', 'board', '1.0.0', null, ['hall-b']],
    );
    const withAttributes = await device(macOf('a1', 5000));
    assert.deepEqual([withAttributes.name, withAttributes.attributes], ['with, attributes', { rev: 'B', serial: 'SN-1' }]);
    const entries = await importEntries();
    assert.equal(entries.length, 1, 'one ledger entry for the whole import');
    assert.deepEqual(JSON.parse(entries[0].payload), {
      format: 'csv',
      sha256: result.sha256,
      rows: 2001,
      created: 2001,
      skipped: 0,
      groups: [{ id: (JSON.parse(entries[0].payload) as { groups: { id: number }[] }).groups[0].id, name: 'hall-b', added: 10 }],
    });

    // An imported device logs in with the tenant's device key, registers (it exists) and is offered a rollout to its group.
    const token = await app.login(tenant);
    const registered = await post(
      `${app.urls.vc}/api/device/register`,
      { mac: macOf('a1', 3), firmware_version: '1.0.0', name: 'x' },
      token,
    );
    assert.deepEqual(registered.body, { message: 'Device exists!' });
    const firmware = await app.publishFirmware(tenant, '2.0.0', Buffer.from('firmware 2.0.0 for imported devices'), 'board');
    const rollout = await app.createRollout(tenant, { firmwareId: firmware.id, group: 'hall-b', startDate: '2020-01-01 00:00:00' });
    const next = await post(`${app.urls.vc}/api/device/next/rollout`, { mac: macOf('a1', 3), firmware_version: '1.0.0' }, token);
    assert.equal(next.status, 200, next.text);
    assert.equal((next.body as { rollout_id?: string }).rollout_id, String(rollout.id));
  });

  it('imports NDJSON rows: controller ids speak DDI and poll with the target token they keep', async () => {
    const body = [
      JSON.stringify({
        controller_id: 'nd-pump-1',
        device_type: 'board',
        name: 'Pump one',
        target_token: 'kept-token-1',
        attributes: { hw: 'v2' },
      }),
      '',
      JSON.stringify({ controller_id: 'nd-pump-2', device_type: 'board', group: 'hall-b' }),
      JSON.stringify({ mac: 'AC:67:B2:0A:0B:0C', device_type: 'board', firmware_version: '1.0.0', protocol: 'ddi' }),
    ].join('\n');
    const result = await imported(body, 'application/x-ndjson');
    assert.deepEqual([result.rows, result.created, result.skipped], [3, 3, 0]);
    const pump = await device('nd-pump-1');
    assert.deepEqual(
      [pump.protocol, pump.name, pump.has_target_token, pump.attributes, pump.firmware_version],
      ['ddi', 'Pump one', true, { hw: 'v2' }, ''],
    );
    assert.deepEqual(
      (await device('nd-pump-2')).groups.map((g) => g.name),
      ['hall-b'],
    );
    assert.equal((await device('ac-67-b2-0a-0b-0c')).protocol, 'ddi');
    const poll = await request('GET', `${app.urls.ddi}/${tenant.name}/controller/v1/nd-pump-1`, {
      headers: { authorization: 'TargetToken kept-token-1' },
    });
    assert.equal(poll.status, 200, poll.text);
  });

  it('re-importing skips the devices the tenant has, lists them, and writes no ledger entry', async () => {
    const body = ['controller_id,device_type', 'nd-pump-1,board', 'fresh-1,board', 'fresh-1,board', 'nd-pump-2,board'].join('\r\n');
    const before = (await importEntries()).length;
    const result = await imported(body);
    assert.deepEqual([result.created, result.skipped, result.skipped_devices], [1, 3, ['nd-pump-1', 'fresh-1', 'nd-pump-2']]);
    assert.equal((await importEntries()).length, before + 1);
    const again = await imported(body);
    assert.deepEqual([again.created, again.skipped], [0, 4]);
    assert.equal((await importEntries()).length, before + 1, 'nothing created: no entry');
  });

  it('a bad row is named by its line and field, and nothing of the import is written', async () => {
    const count = await deviceCount();
    const good = (n: number) => `${macOf('b2', n)},board,1.0.0`;
    const body = [
      'mac,device_type,firmware_version',
      good(1),
      good(2),
      good(3),
      good(4),
      good(5),
      'zz,board,1.0.0',
      good(6),
      `${macOf('b2', 7)},,1.0.0`,
    ].join('\n');
    const answer = await importRows(body);
    assert.equal(answer.status, 400, answer.text);
    const rejected = answer.body as DeviceImportRejectedResponse;
    assert.equal(rejected.field, 'mac');
    assert.match(
      rejected.message,
      /^line 7: mac "zz" is not a hardware address \(EUI-48 or EUI-64, .*\); a controller id goes in controller_id \(and 1 more bad row\)$/,
    );
    assert.deepEqual(
      rejected.errors.map((e) => [e.line, e.field]),
      [
        [7, 'mac'],
        [9, 'device_type'],
      ],
    );
    assert.equal(rejected.errors[1].message, 'line 9: device_type is required');
    assert.equal(await deviceCount(), count, 'the good rows were not written either');

    const many = ['mac,device_type', ...Array.from({ length: 30 }, (_, i) => `${macOf('b2', 100 + i)},${'x'.repeat(65)}`)].join('\n');
    const stopped = (await importRows(many)).body as DeviceImportRejectedResponse;
    assert.equal(stopped.errors.length, 20, 'at most 20 bad rows, then reading stops');
    assert.equal(stopped.errors[0].message, 'line 2: device_type must be 1 to 64 printable characters');
    assert.match(stopped.message, /\(and 19 more bad rows, reading stopped\)$/);

    const checks: [string, string, string][] = [
      ['mac,device_type,colour\nAC:67:B2:01:01:01,board,red', 'colour', 'line 1: unknown column "colour"'],
      ['mac,device_type,group\nAC:67:B2:01:01:01,board,nowhere', 'group', 'line 2: group "nowhere" not found (create it first)'],
      ['mac,device_type,attributes\nAC:67:B2:01:01:01,board,[1]', 'attributes', 'line 2: attributes must be an object'],
      ['controller_id,device_type,protocol\npump-x,board,asvin', 'controller_id', 'line 2: controller_id "pump-x" is no hardware address'],
      ['controller_id,device_type,protocol\npump-x,board,mender', 'protocol', 'line 2: protocol must be asvin or ddi'],
      ['mac,device_type\nAC:67:B2:01:01:01,board,extra', 'csv', 'line 2: the row does not have as many cells as the header'],
      ['mac,device_type\n', 'csv', 'line 1: the import has no rows'],
    ];
    for (const [csv, field, message] of checks) {
      const bad = await importRows(csv);
      assert.equal(bad.status, 400, `${csv}: ${bad.text}`);
      assert.equal((bad.body as DeviceImportRejectedResponse).field, field, csv);
      assert.ok((bad.body as DeviceImportRejectedResponse).message.startsWith(message), `${csv}: ${bad.text}`);
    }
    const ndjson = await importRows(
      '{"mac":"AC:67:B2:01:01:01","device_type":"board"}\n{"mac": 5, "device_type":"board"}\nnot json',
      'application/x-ndjson',
    );
    assert.deepEqual(
      (ndjson.body as DeviceImportRejectedResponse).errors.map((e) => e.message),
      ['line 2: mac must be a string', 'line 3: not a JSON object'],
    );
    assert.equal(await deviceCount(), count);
  });

  it(
    'on PostgreSQL, an import of 10,000 rows or more leaves the planner knowing the tables’ sizes',
    { skip: TEST_ENGINE !== 'postgres' },
    async () => {
      // Without it, plans stay made for small tables until autovacuum runs (docs/scaling.md).
      const estimate = async (table: string) =>
        Number((await app.database.query<{ n: unknown }>('SELECT reltuples AS n FROM pg_class WHERE relname = $1', [table]))[0].n);
      const devicesBefore = await deviceCount();
      const body = ['mac,device_type,group', ...Array.from({ length: 10_000 }, (_, i) => `${macOf('e5', i)},board,hall-b`)].join('\n');
      assert.equal((await imported(body)).created, 10_000);
      assert.ok((await estimate('device')) >= devicesBefore + 10_000, `device estimate ${await estimate('device')}`);
      assert.ok((await estimate('group_member')) >= 10_000, `group_member estimate ${await estimate('group_member')}`);
    },
  );

  it('refuses another media type (415), a body over DEVICE_IMPORT_MAX_BYTES (413), an unknown tenant (404)', async () => {
    const json = await request('POST', `${app.urls.operator}/tenants/${tenant.name}/devices/import`, { bearer, body: [{ mac: 'x' }] });
    assert.deepEqual([json.status, json.body], [415, { message: 'Body must be text/csv or application/x-ndjson' }]);
    const big = ['mac,device_type', ...Array.from({ length: 30_000 }, (_, i) => `${macOf('c3', i)},board`)].join('\n');
    assert.ok(big.length > MAX_BYTES);
    const tooLarge = await importRows(big);
    assert.equal(tooLarge.status, 413, tooLarge.text);
    assert.equal((tooLarge.body as { message: string }).message, `Import is larger than ${MAX_BYTES} bytes (DEVICE_IMPORT_MAX_BYTES)`);
    assert.equal(
      (await request('GET', `${app.urls.operator}/tenants/${tenant.name}/devices/${macOf('c3', 0)}`, { bearer })).status,
      404,
      'nothing of it was written',
    );
    assert.equal((await importRows('mac,device_type\nAC:67:B2:01:01:01,board', 'text/csv', 'no-such-tenant')).status, 404);
  });

  it('firmledger device import FILE.csv streams the file with its progress on stderr; --json shows none', async () => {
    const file = join(dir, 'devices.csv');
    await writeFile(
      file,
      ['mac,device_type,name', ...Array.from({ length: 1500 }, (_, i) => `${macOf('d4', i)},board,cli ${i}`)].join('\n'),
    );
    const human = await runCli(app, 'device', 'import', file, '--tenant', tenant.name);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stderr, /\rimporting devices\.csv: 0 rows/);
    assert.match(human.stderr, /\rimporting devices\.csv: 1500 rows, writing/);
    assert.match(human.stdout, /^imported 1500 device\(s\); skipped 0 the tenant has$/m);
    assert.equal((await device(macOf('d4', 7))).name, 'cli 7');

    const ndjson = join(dir, 'more.jsonl');
    await writeFile(
      ndjson,
      `${JSON.stringify({ mac: macOf('d4', 1), device_type: 'board' })}\n${JSON.stringify({ mac: macOf('d4', 9999), device_type: 'board' })}\n`,
    );
    const quiet = await runCli(app, 'device', 'import', ndjson, '--tenant', tenant.name, '--json');
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /importing/);
    const result = JSON.parse(quiet.stdout) as DeviceImportResponse;
    assert.deepEqual([result.created, result.skipped, result.skipped_devices], [1, 1, [macOf('d4', 1)]]);

    const bad = join(dir, 'bad.txt');
    await writeFile(bad, 'mac,device_type\nzz,board\n');
    const refused = await runCli(app, 'device', 'import', bad, '--tenant', tenant.name, '--format', 'csv');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /line 2: mac "zz" is not a hardware address/);
    const unknown = await runCli(app, 'device', 'import', bad, '--tenant', tenant.name);
    assert.match(unknown.stderr, /give --format/);
  });
});
