import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  notTargetedSentence,
  barSegments,
  boundText,
  legendSegments,
  parsePercentText,
  parseWavesText,
  percentOfShare,
  progressSentence,
  type StateCounts,
} from './rollout-progress.js';

const counts: StateCounts = {
  targeted: 200,
  pending: 99,
  offered: 5,
  downloading: 4,
  installed: 3,
  confirmed: 80,
  failed: 6,
  fell_back: 2,
  timed_out: 1,
};

describe(notTargetedSentence.name, () => {
  it('names the members that are not targets, and says nothing when there are none', () => {
    assert.equal(notTargetedSentence(0, 0), null);
    assert.equal(notTargetedSentence(1, 0), 'Not targeted: 1 of another device type (never offered it).');
    assert.equal(
      notTargetedSentence(2, 3),
      'Not targeted: 2 of another device type (never offered it); 3 not registered (each becomes a target when it registers; ' +
        'they hold the finish until then or until they leave the group).',
    );
    assert.match(notTargetedSentence(0, 1)!, /it holds the finish until then or until it leaves the group/);
  });
});

describe(parseWavesText.name, () => {
  it('reads shares and whole numbers, separated by commas, semicolons or spaces', () => {
    assert.deepEqual(parseWavesText('10%, 30%,100%'), { value: ['10%', '30%', '100%'] });
    assert.deepEqual(parseWavesText(' 50; 150 '), { value: ['50', '150'] });
    assert.deepEqual(parseWavesText('12.5% 100%'), { value: ['12.5%', '100%'] });
    assert.deepEqual(parseWavesText('010%'), { value: ['10%'] });
  });

  it('names what is wrong in the words of the server’s reader of wave plans', () => {
    assert.match(parseWavesText('').error!, /^waves must list 1 to 20 wave bounds/);
    assert.match(parseWavesText('10%, ten').error!, /^wave 2 \("ten"\) is neither a share/);
    assert.match(parseWavesText('0%').error!, /above 0% and at most 100%/);
    assert.match(parseWavesText('120%').error!, /above 0% and at most 100%/);
    assert.match(parseWavesText('0').error!, /neither a share/);
    assert.match(parseWavesText('1.5').error!, /neither a share/);
    assert.match(parseWavesText('30%, 10%').error!, /^wave 2 \("10%"\) is below the wave before it/);
    assert.match(parseWavesText('100, 50').error!, /below the wave before it/);
    assert.match(
      parseWavesText(Array.from({ length: 21 }, (_, i) => `${i + 1}`).join(',')).error!,
      /^waves must list 1 to 20 wave bounds.*this lists 21$/,
    );
  });
});

describe(parsePercentText.name, () => {
  it('reads a percentage into a share', () => {
    assert.deepEqual(parsePercentText('80', 'x', false), { value: 0.8 });
    assert.deepEqual(parsePercentText(' 12.5 % ', 'x', false), { value: 0.125 });
    assert.deepEqual(parsePercentText('0', 'x', false), { value: 0 });
    assert.deepEqual(parsePercentText('100', 'x', false), { value: 1 });
  });

  it('leaves an optional threshold out when empty, and asks for a required one', () => {
    assert.deepEqual(parsePercentText('', 'x', true), { value: null });
    assert.equal(
      parsePercentText(' ', 'The success threshold', false).error,
      'The success threshold is needed: a percentage from 0 to 100.',
    );
  });

  it('refuses what is no percentage', () => {
    for (const text of ['101', '-5', 'eighty', '0.8.1', '1e2']) {
      assert.match(
        parsePercentText(text, 'The error threshold', true).error!,
        /^The error threshold must be a percentage from 0 to 100/,
        text,
      );
    }
  });
});

describe(percentOfShare.name, () => {
  it('writes a share as a percentage', () => {
    assert.equal(percentOfShare(0.8), '80 %');
    assert.equal(percentOfShare(0.125), '12.5 %');
    assert.equal(percentOfShare(0.205), '20.5 %');
  });
});

describe(progressSentence.name, () => {
  it('counts the confirmed devices, and the failures when there are some', () => {
    assert.equal(progressSentence(counts), '80 of 200 devices confirmed (40 %); 6 failed, 2 fell back, 1 timed out');
    assert.equal(progressSentence({ ...counts, failed: 0, timed_out: 0 }), '80 of 200 devices confirmed (40 %); 2 fell back');
    assert.equal(
      progressSentence({ ...counts, targeted: 0, confirmed: 0, failed: 0, fell_back: 0, timed_out: 0 }),
      '0 of 0 devices confirmed (—)',
    );
  });
});

describe(barSegments.name, () => {
  it('puts the confirmed devices first and the failures last; the legend keeps the counting order', () => {
    assert.deepEqual(
      barSegments(counts).map((s) => s.key),
      ['confirmed', 'installed', 'downloading', 'offered', 'pending', 'timed_out', 'fell_back', 'failed'],
    );
    assert.deepEqual(
      legendSegments(counts).map((s) => `${s.label} ${s.count}`),
      ['pending 99', 'offered 5', 'downloading 4', 'installed 3', 'confirmed 80', 'failed 6', 'fell back 2', 'timed out 1'],
    );
  });
});

describe(boundText.name, () => {
  it('reads a bound, the last wave taking the rest', () => {
    assert.equal(boundText('10%', false), 'up to the first 10 % of the devices');
    assert.equal(boundText('50', false), 'up to the first 50 devices');
    assert.equal(boundText('100%', true), 'every device left, and any that join the group');
    assert.equal(boundText('50%', true), 'up to the first 50 % of the devices, then every device left and any that join');
  });
});
