import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { SCHEMA } from '#src/app/schema.js';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { filterCondition, FilterSyntaxError, matchesFilter, parseFilter, type FilterDevice } from './device-filter.js';

describe('device filter: parsing', () => {
  it('reads fields, operators, and/or/not with precedence and parentheses', () => {
    assert.deepEqual(parseFilter('device_type = ESP32 or name ~ lab* and not label.beta'), {
      kind: 'or',
      left: { kind: 'cmp', field: { kind: 'column', name: 'device_type' }, op: '=', value: 'ESP32' },
      right: {
        kind: 'and',
        left: { kind: 'cmp', field: { kind: 'column', name: 'name' }, op: '~', value: 'lab*' },
        right: { kind: 'not', expr: { kind: 'has', field: { kind: 'label', key: 'beta' } } },
      },
    });
    assert.deepEqual(parseFilter('(attribute."hw rev" != "a \\"b\\"")'), {
      kind: 'cmp',
      field: { kind: 'attribute', key: 'hw rev' },
      op: '!=',
      value: 'a "b"',
    });
  });

  it('names the column where a bad filter goes wrong', () => {
    for (const [text, column] of [
      ['device_type = ', 15],
      ['devicetype = ESP32', 1],
      ['device_type = ESP32 and', 24],
      ['(name = a', 10],
      ['', 1],
    ] as const) {
      assert.throws(
        () => parseFilter(text),
        (error: unknown) => error instanceof FilterSyntaxError && error.column === column,
        text,
      );
    }
  });
});

/** The filter's two forms over one table of devices and filters: the SQL must decide as the predicate. */
describe('device filter: predicate and SQL agree', () => {
  let dir: string;
  let db: DataSource;

  const DEVICES: (FilterDevice & { id: number })[] = [
    { id: 1, deviceType: 'ESP32', firmwareVersion: '1.2.0', name: 'lab-1', labels: { site: 'lab', beta: '' }, attributes: { hw_rev: '3' } },
    {
      id: 2,
      deviceType: 'ESP32',
      firmwareVersion: '1.3.0',
      name: 'field_2',
      labels: { site: 'field' },
      attributes: { hw_rev: '2', 'a b': 'x%y' },
    },
    { id: 3, deviceType: 'ESP8266', firmwareVersion: '1.2.1', name: 'Lab-3', labels: {}, attributes: null },
    { id: 4, deviceType: 'ESP32', firmwareVersion: '2.0.0', name: 'x[1]?', labels: { 'k:1': 'v/2' }, attributes: { hw_rev: '3' } },
  ];
  const FILTERS = [
    'device_type = ESP32',
    'device_type != ESP32',
    'device_type = ESP32 and attribute.hw_rev = 3',
    'device_type = ESP32 and attribute.hw_rev = 3 and not label.site = lab',
    'label.site != lab',
    'label.beta',
    'not label.beta',
    'attribute.hw_rev',
    'attribute.hw_rev != 3',
    'firmware_version ~ 1.2',
    'firmware_version ~ "1.*.0"',
    'name ~ lab',
    'name ~ "field_"',
    'name ~ "x[1]?"',
    'attribute."a b" ~ "x%"',
    'attribute."a b" = "x%y"',
    'label.k:1 = v/2 or (device_type = ESP8266 and name = Lab-3)',
    'not (label.site = lab or label.site = field)',
  ];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-filter-'));
    db = await new DataSource(dataSourceOptions({ databasePath: join(dir, 'db.sqlite') }, SCHEMA)).initialize();
    await db.query(`INSERT INTO tenant (id, name, customer_key, created_at) VALUES (1, 't', 'k', 0)`);
    for (const d of DEVICES) {
      await db.query(
        `INSERT INTO device (id, tenant_id, mac, name, firmware_version, device_type, created_at, attributes)
         VALUES (?, 1, ?, ?, ?, ?, 0, ?)`,
        [d.id, `m${d.id}`, d.name, d.firmwareVersion, d.deviceType, d.attributes && JSON.stringify(d.attributes)],
      );
      for (const [key, value] of Object.entries(d.labels)) {
        await db.query('INSERT INTO device_label (device_id, key, value) VALUES (?, ?, ?)', [d.id, key, value]);
      }
    }
  });

  after(async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  for (const filter of FILTERS) {
    it(filter, async () => {
      const node = parseFilter(filter);
      const expected = DEVICES.filter((d) => matchesFilter(node, d)).map((d) => d.id);
      const condition = filterCondition(node, 'd', 'sqlite');
      const rows = await db
        .createQueryBuilder()
        .select('d.id', 'id')
        .from('device', 'd')
        .where(condition.sql, condition.params)
        .orderBy('d.id')
        .getRawMany<{ id: number }>();
      assert.deepEqual(
        rows.map((r) => Number(r.id)),
        expected,
      );
    });
  }

  it('the predicate decides the documented example', () => {
    const node = parseFilter('device_type = ESP32 and attribute.hw_rev = 3 and not label.site = lab');
    assert.deepEqual(
      DEVICES.filter((d) => matchesFilter(node, d)).map((d) => d.id),
      [4],
    );
  });
});
