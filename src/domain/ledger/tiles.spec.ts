import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntryBundle, encodeEntryBundle, parseTilePath, TilePathError, tilePath, tilesOf, type TileRef } from './tiles.js';

/** The examples and rules of c2sp.org/tlog-tiles. */
describe('tiles (C2SP tlog-tiles)', () => {
  it('writes and reads tile indexes in groups of three digits, x before all but the last', () => {
    const cases: Array<[number, string]> = [
      [0, '000'],
      [5, '005'],
      [999, '999'],
      [1000, 'x001/000'],
      [1234, 'x001/234'],
      [1234067, 'x001/x234/067'],
    ];
    for (const [index, text] of cases) {
      assert.equal(tilePath({ level: 0, index, width: 256 }), `0/${text}`);
      assert.deepEqual(parseTilePath(`0/${text}`), { level: 0, index, width: 256 });
    }
    assert.equal(tilePath({ level: 'entries', index: 1234, width: 17 }), 'entries/x001/234.p/17');
    assert.deepEqual(parseTilePath('entries/x001/234.p/17'), { level: 'entries', index: 1234, width: 17 });
    assert.deepEqual(parseTilePath('63/000.p/255'), { level: 63, index: 0, width: 255 });
  });

  it('refuses non-canonical and malformed paths, and answers null for indexes no tree reaches', () => {
    for (const path of ['0/1', '00/000', '64/000', '0/000.p/0', '0/000.p/256', '0/000.p/01', '0/x000/001', '0/001/', 'data/000', '']) {
      assert.throws(() => parseTilePath(path), TilePathError, path);
    }
    assert.equal(parseTilePath('0/x999/x999/x999/999'), null);
    assert.equal(parseTilePath('0/x008/x388/607'), null, 'past 2^23 tiles: beyond any 32-bit entry number');
    assert.ok(parseTilePath('0/x008/x388/606'));
  });

  it('lists the tiles of the spec’s example tree of 70,000 entries', () => {
    const tiles = tilesOf(70_000);
    const partial = (t: TileRef) => t.width < 256;
    assert.equal(tiles.filter((t) => t.level === 0 && !partial(t)).length, 273);
    assert.deepEqual(
      tiles.filter(partial).map((t) => tilePath(t)),
      ['0/273.p/112', '1/001.p/17', '2/000.p/1'],
    );
    assert.deepEqual(
      tiles.filter((t) => t.level === 1).map((t) => tilePath(t)),
      ['1/000', '1/001.p/17'],
    );
    assert.deepEqual(tilesOf(256).map(tilePath), ['0/000', '1/000.p/1']);
    assert.deepEqual(tilesOf(0), []);
  });

  it('encodes entry bundles as big-endian uint16 lengths and bytes', () => {
    const bundle = encodeEntryBundle([Buffer.from(''), Buffer.from('a'), Buffer.from('hello world')]);
    assert.equal(bundle.toString('hex'), '0000000161000b68656c6c6f20776f726c64');
    assert.deepEqual(
      decodeEntryBundle(bundle, 3).map((e) => e.toString()),
      ['', 'a', 'hello world'],
    );
    assert.throws(() => decodeEntryBundle(bundle, 2), /holds 3 entries, not 2/);
    assert.throws(() => decodeEntryBundle(bundle.subarray(0, bundle.length - 1), 3), /runs past the end/);
    assert.equal(encodeEntryBundle([Buffer.alloc(65_535)]).length, 65_537);
    assert.throws(() => encodeEntryBundle([Buffer.alloc(65_536)]), RangeError);
  });
});
