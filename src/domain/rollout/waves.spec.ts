import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { noDevices } from './device-state.js';
import { judgeWave, parseWaves, pauseReason, waveEnds, waveOf } from './waves.js';

describe(parseWaves.name, () => {
  it('reads shares and whole numbers, in canonical text', () => {
    assert.deepEqual(parseWaves(['10%', ' 30.5% ', 100, '250', '100%']), ['10%', '30.5%', '100', '250', '100%']);
  });

  it('names what is wrong', () => {
    assert.equal(parseWaves([]), 'waves must list 1 to 20 wave bounds');
    assert.equal(parseWaves(Array.from({ length: 21 }, () => '5%')), 'waves must list 1 to 20 wave bounds');
    assert.equal(parseWaves(['0%']), 'wave bound 0% must be a share above 0% and at most 100%');
    assert.equal(parseWaves(['101%']), 'wave bound 101% must be a share above 0% and at most 100%');
    for (const bad of ['ten', '10 %', '-5', 0, 1.5, null, '1e3']) {
      assert.equal(parseWaves([bad]), 'each wave must be a share like "10%" or a whole number of devices like 50', String(bad));
    }
  });
});

describe(waveEnds.name, () => {
  it('cumulative shares of the devices, rounded up; the last wave takes the rest', () => {
    assert.deepEqual(waveEnds(['10%', '30%', '100%'], 1000), [100, 300, 1000]);
    assert.deepEqual(waveEnds(['10%', '30%'], 1000), [100, 1000]);
    assert.deepEqual(waveEnds(['10%', '30%', '100%'], 7), [1, 3, 7]);
  });

  it('whole numbers are device counts; a bound never shrinks below the one before', () => {
    assert.deepEqual(waveEnds(['5', '3', '100%'], 20), [5, 5, 20]);
    assert.deepEqual(waveEnds(['50', '100'], 20), [20, 20]);
  });

  it('places each device of the stable order in its wave', () => {
    const ends = waveEnds(['10%', '30%', '100%'], 10);
    assert.deepEqual(
      Array.from({ length: 10 }, (_, i) => waveOf(i, ends)),
      [1, 2, 2, 3, 3, 3, 3, 3, 3, 3],
    );
    assert.equal(waveOf(10, ends), 3, 'beyond the last bound: the last wave');
  });
});

describe(judgeWave.name, () => {
  const counts = (confirmed: number, failed: number, fellBack: number, targeted: number) => ({
    ...noDevices(),
    targeted,
    confirmed,
    failed,
    fell_back: fellBack,
  });

  it('passes at the success threshold, not below', () => {
    assert.equal(judgeWave(counts(80, 0, 0, 100), 0.8, null).passed, true);
    assert.equal(judgeWave(counts(79, 0, 0, 100), 0.8, null).passed, false);
    assert.equal(judgeWave(counts(0, 0, 0, 0), 0.8, null).passed, true, 'an empty wave has nothing to wait for');
  });

  it('is over errors only above the error threshold; never without one', () => {
    assert.equal(judgeWave(counts(0, 10, 10, 100), 0.8, 0.2).overErrors, false);
    assert.equal(judgeWave(counts(0, 10, 11, 100), 0.8, 0.2).overErrors, true);
    assert.equal(judgeWave(counts(0, 100, 0, 100), 0.8, null).overErrors, false);
  });

  it('words the pause', () => {
    assert.equal(
      pauseReason(2, counts(150, 1, 40, 200), 0.2),
      'wave 2: 41 of 200 devices failed or fell back (20.5%), over the error threshold 20%',
    );
  });
});
