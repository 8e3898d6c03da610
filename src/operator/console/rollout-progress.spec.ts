import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  notTargetedSentence,
  barSegments,
  boundText,
  legendSegments,
  NEW_ABORT,
  NEW_RAMP,
  NEW_WINDOW,
  noSafety,
  parsePercentText,
  parseWavesText,
  NEW_ROLLBACK,
  readSafety,
  safetyFieldOf,
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
  skipped: 0,
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
      ['confirmed', 'skipped', 'installed', 'downloading', 'offered', 'pending', 'timed_out', 'fell_back', 'failed'],
    );
    assert.deepEqual(
      legendSegments(counts).map((s) => `${s.label} ${s.count}`),
      ['pending 99', 'offered 5', 'downloading 4', 'installed 3', 'confirmed 80', 'failed 6', 'fell back 2', 'timed out 1', 'skipped 0'],
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

describe(readSafety.name, () => {
  it('leaves out what is not set: the body is then the same as without schedule and safety', () => {
    assert.deepEqual(readSafety(noSafety()), { body: {}, errors: {} });
  });

  it('reads windows, a ramp, criteria and timeouts into the body the operator API takes, lengths in seconds', () => {
    const text = noSafety();
    text.windows = [{ ...NEW_WINDOW, cron: ' 0 2 * * * ', time_zone: 'Europe/Berlin' }];
    text.ramp = { ...NEW_RAMP, base_per_minute: '10', every: '100', maximum_per_minute: '500' };
    text.abort_criteria = [{ ...NEW_ABORT, threshold_percentage: '12.5%', min_finished: '20', action: 'cancel' }];
    text.timeouts.offered = { length: '1', unit: 'h' };
    text.timeouts.installed = { length: '30', unit: 'm' };
    assert.deepEqual(readSafety(text), {
      body: {
        windows: [{ cron: '0 2 * * *', duration_seconds: 10_800, time_zone: 'Europe/Berlin' }],
        ramp: { base_per_minute: 10, increment_factor: 2, increment_every: { confirmed: 100 }, maximum_per_minute: 500 },
        abort_criteria: [{ failure: 'failed', threshold_percentage: 12.5, min_finished: 20, action: 'cancel' }],
        timeouts: { offered: 3600, installed: 1800 },
      },
      errors: {},
    });
  });

  it('names each problem at its field, in words, by the field’s path in the body', () => {
    const text = noSafety();
    text.windows = [{ ...NEW_WINDOW, cron: '', length: '8', unit: 'd' }];
    text.ramp = { ...NEW_RAMP, base_per_minute: '50', increment_factor: '9', every: 'x', maximum_per_minute: '20' };
    text.abort_criteria = [{ ...NEW_ABORT, threshold_percentage: '0', min_finished: '1.5' }];
    text.timeouts.downloading = { length: '30', unit: 'd' };
    assert.deepEqual(
      Object.keys(readSafety(text).errors).sort(),
      [
        'abort_criteria[0].min_finished',
        'abort_criteria[0].threshold_percentage',
        'ramp.base_per_minute',
        'ramp.increment_every',
        'ramp.increment_factor',
        'ramp.maximum_per_minute',
        'timeouts.downloading',
        'windows[0].cron',
        'windows[0].duration_seconds',
      ].filter((key) => key !== 'ramp.base_per_minute'),
    );
    assert.equal(
      readSafety(text).errors['windows[0].duration_seconds'],
      'How long it stays open must be a whole number of days, from 1 minute to 7 days.',
    );
    assert.equal(
      readSafety(text).errors['ramp.maximum_per_minute'],
      'The most offers a minute must be a whole number from the first rate (50) to 1000.',
    );
  });
});

describe(safetyFieldOf.name, () => {
  it('finds the field inside the body field a refusal names, from the start of its message', () => {
    assert.equal(safetyFieldOf('windows', 'windows[0].cron is not a valid cron expression: Invalid value for hour: 25'), 'windows[0].cron');
    assert.equal(safetyFieldOf('ramp', 'ramp.increment_every.confirmed must be a whole number from 1 to 1000000'), 'ramp.increment_every');
    assert.equal(safetyFieldOf('abort_criteria', 'abort_criteria[2].action must be one of pause, cancel'), 'abort_criteria[2].action');
    assert.equal(safetyFieldOf('timeouts', 'timeouts.offered must be whole seconds from 60 to 604800 (7 days)'), 'timeouts.offered');
    assert.equal(safetyFieldOf('windows', 'windows must be a list of at most 10 maintenance windows'), 'windows');
    assert.equal(safetyFieldOf('start_date', 'start_date must be a real UTC date and time "YYYY-MM-DD HH:MM:SS"'), undefined);
  });

  it('finds the rollback field the server names, in its field or in its message', () => {
    assert.equal(
      safetyFieldOf('rollback.firmware_id', 'rollback.firmware_id: firmware 3 (1.4.2) is not marked as a rollback target'),
      'rollback.firmware_id',
    );
    assert.equal(safetyFieldOf('rollback', 'rollback.failed_count must be a whole number from 1 to 1000000'), 'rollback.failed_count');
    assert.equal(safetyFieldOf('rollback', 'rollback needs a trigger: failed_count, failed_percentage or both'), 'rollback');
  });
});

describe(`${readSafety.name}: rollback`, () => {
  it('reads the policy, a trigger left empty as none', () => {
    const text = noSafety();
    text.rollback = { ...NEW_ROLLBACK, firmware_id: '3', failed_percentage: '5 %' };
    assert.deepEqual(readSafety(text), {
      body: { rollback: { firmware_id: 3, failed_percentage: 5, failed_count: null, scope: 'failed' } },
      errors: {},
    });
  });

  it('names what is missing or wrong at its field', () => {
    const text = noSafety();
    text.rollback = { ...NEW_ROLLBACK };
    assert.deepEqual(Object.keys(readSafety(text).errors).sort(), ['rollback', 'rollback.firmware_id']);
    text.rollback = { ...NEW_ROLLBACK, firmware_id: '3', failed_percentage: '120', failed_count: 'many' };
    assert.deepEqual(Object.keys(readSafety(text).errors).sort(), ['rollback.failed_count', 'rollback.failed_percentage']);
  });
});
