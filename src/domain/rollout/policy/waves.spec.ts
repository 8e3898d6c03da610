import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { noDevices } from './device-states.js';
import { judgeWave, parseWavePlan, pauseReason, waveEnds, waveOf } from './waves.js';

describe(parseWavePlan.name, () => {
  const error = (input: readonly unknown[]) => {
    const plan = parseWavePlan(input);
    return 'error' in plan ? plan.error : undefined;
  };

  it('reads shares and whole numbers, in canonical text', () => {
    assert.deepEqual(parseWavePlan(['10%', ' 30.5% ', 100, '250', '100%']), { bounds: ['10%', '30.5%', '100', '250', '100%'] });
    assert.deepEqual(parseWavePlan(['010%', '0050']), { bounds: ['10%', '50'] });
  });

  it('names what is wrong, and the wave it is about', () => {
    assert.deepEqual(error([]), { message: 'waves must list 1 to 20 wave bounds, such as 10% then 100%; this lists 0' });
    assert.match(error(Array.from({ length: 21 }, () => '5%'))!.message, /^waves must list 1 to 20 wave bounds.*this lists 21$/);
    assert.deepEqual(error(['0%']), { wave: 1, message: 'wave 1 ("0%") must be a share above 0% and at most 100%' });
    assert.deepEqual(error(['10%', '101%']), { wave: 2, message: 'wave 2 ("101%") must be a share above 0% and at most 100%' });
    for (const bad of ['ten', '10 %', '-5', 0, 1.5, null, '1e3', {}]) {
      assert.match(
        error([bad])?.message ?? '',
        /^wave 1 \(.*\) is neither a share like "10%" nor a whole number of devices like 50$/,
        JSON.stringify(bad),
      );
    }
  });

  it('refuses a bound below the one before it of the same kind (waves are cumulative)', () => {
    assert.deepEqual(error(['30%', '10%']), {
      wave: 2,
      message: 'wave 2 ("10%") is below the wave before it: each wave counts the devices of the waves before it too',
    });
    assert.equal(error(['100', '50'])?.wave, 2);
    assert.equal(error(['50', '10%', '40', '100%'])?.wave, 3, 'counts are compared with counts, shares with shares');
    assert.deepEqual(parseWavePlan(['50', '10%', '60', '100%']), { bounds: ['50', '10%', '60', '100%'] });
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
