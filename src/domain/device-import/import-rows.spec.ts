import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { readImportRows, RowProblem, type ImportFormat, type ImportRow } from './import-rows.js';

/** Every row of `text` in `format`, its input arriving in `chunk`-character pieces. */
async function rowsOf(text: string, format: ImportFormat, chunk = 7): Promise<ImportRow[]> {
  const pieces = Array.from({ length: Math.ceil(text.length / chunk) }, (_, i) => Buffer.from(text.slice(i * chunk, (i + 1) * chunk)));
  const rows: ImportRow[] = [];
  for await (const row of readImportRows(Readable.from(pieces), format)) rows.push(row);
  return rows;
}

/** The problem reading `text` stops at. */
async function problemOf(text: string, format: ImportFormat): Promise<RowProblem> {
  try {
    await rowsOf(text, format);
  } catch (error) {
    assert.ok(error instanceof RowProblem, String(error));
    return error;
  }
  assert.fail('read without a problem');
}

describe(readImportRows.name, () => {
  it('reads CSV with a header: empty cells absent, quoted cells, a byte-order mark, CRLF, blank lines skipped, each row its line', async () => {
    const csv = '\uFEFFmac,device_type,name,attributes\r\nAC:67:B2:01:02:03,ESP32,,\r\n\r\npump-7,board,"a, b ""c""","{""k"":""v""}"\r\n';
    assert.deepEqual(await rowsOf(csv, 'csv'), [
      { line: 2, fields: { mac: 'AC:67:B2:01:02:03', device_type: 'ESP32' } },
      { line: 4, fields: { mac: 'pump-7', device_type: 'board', name: 'a, b "c"', attributes: '{"k":"v"}' } },
    ]);
  });

  it('names a CSV row with another number of cells, an unclosed quote, an unknown column', async () => {
    const cells = await problemOf('mac,device_type\nA,b\nA,b,c\n', 'csv');
    assert.deepEqual([cells.line, cells.field, cells.message], [3, 'csv', 'line 3: the row does not have as many cells as the header']);
    assert.equal((await problemOf('mac,device_type\nA,"b\n', 'csv')).field, 'csv');
    const column = await problemOf('mac,colour\nA,red\n', 'csv');
    assert.deepEqual([column.line, column.field], [1, 'colour']);
  });

  it('reads NDJSON a line at a time: blank lines skipped, values as they are', async () => {
    const ndjson = '{"mac":"A","device_type":"b","attributes":{"k":"v"}}\n\n{"controller_id":"p","device_type":5}';
    assert.deepEqual(await rowsOf(ndjson, 'ndjson', 5), [
      { line: 1, fields: { mac: 'A', device_type: 'b', attributes: { k: 'v' } } },
      { line: 3, fields: { controller_id: 'p', device_type: 5 } },
    ]);
  });

  it('names an NDJSON line that is no JSON object, an unknown key, a prototype key', async () => {
    for (const line of ['[1]', 'null', '{"mac":', '"text"', '{"__proto__":{"x":1}}']) {
      const problem = await problemOf(`{"mac":"A"}\n${line}\n`, 'ndjson');
      assert.deepEqual([problem.line, problem.message], [2, 'line 2: not a JSON object'], line);
    }
    assert.equal((await problemOf('{"mac":"A","colour":"red"}', 'ndjson')).field, 'colour');
  });
});
