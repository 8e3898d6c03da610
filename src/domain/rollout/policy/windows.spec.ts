import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isTimeZone, parseWindow, parseWindows, windowAt, type MaintenanceWindow } from './windows.js';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const state = (windows: MaintenanceWindow[], now: string) => {
  const s = windowAt(windows, at(now));
  return { open: s.open, nextOpen: iso(s.nextOpen), closesAt: iso(s.closesAt) };
};

describe(windowAt.name, () => {
  const berlinNights: MaintenanceWindow = { cron: '0 2 * * *', durationSeconds: 3 * 3600, timeZone: 'Europe/Berlin' };

  it('is always open without windows', () => {
    assert.deepEqual(state([], '2026-06-01T12:00:00Z'), { open: true, nextOpen: null, closesAt: null });
  });

  it('reads the cron expression in the window’s time zone: 02:00 Berlin is 00:00 UTC in summer', () => {
    assert.deepEqual(state([berlinNights], '2026-06-01T23:59:59Z'), {
      open: false,
      nextOpen: '2026-06-02T00:00:00.000Z',
      closesAt: null,
    });
    assert.deepEqual(state([berlinNights], '2026-06-02T00:00:00Z'), {
      open: true,
      nextOpen: '2026-06-03T00:00:00.000Z',
      closesAt: '2026-06-02T03:00:00.000Z',
    });
    assert.equal(state([berlinNights], '2026-06-02T02:59:59.999Z').open, true);
    // Closed again at start + duration.
    assert.deepEqual(state([berlinNights], '2026-06-02T03:00:00Z'), {
      open: false,
      nextOpen: '2026-06-03T00:00:00.000Z',
      closesAt: null,
    });
  });

  it('follows the change of clocks: 02:00 Berlin is 01:00 UTC in winter', () => {
    assert.equal(state([berlinNights], '2026-12-01T00:30:00Z').open, false);
    assert.deepEqual(state([berlinNights], '2026-12-01T01:30:00Z'), {
      open: true,
      nextOpen: '2026-12-02T01:00:00.000Z',
      closesAt: '2026-12-01T04:00:00.000Z',
    });
  });

  it('keeps local time across a DST change in another zone (09:00 New York: 14:00 UTC, then 13:00 UTC)', () => {
    const morning: MaintenanceWindow = { cron: '0 9 * * *', durationSeconds: 1800, timeZone: 'America/New_York' };
    // 2026-03-08 is the day New York springs forward.
    assert.equal(state([morning], '2026-03-07T14:10:00Z').open, true);
    assert.equal(state([morning], '2026-03-08T14:10:00Z').open, false);
    assert.equal(state([morning], '2026-03-08T13:10:00Z').open, true);
    assert.equal(state([morning], '2026-03-07T20:00:00Z').nextOpen, '2026-03-08T13:00:00.000Z');
  });

  it('opens a time skipped in spring once, after the change (02:00 Berlin on 29 March 2026)', () => {
    // Clocks go from 02:00 to 03:00 CET→CEST: the window opens at 03:00 CEST (01:00 UTC).
    assert.equal(state([berlinNights], '2026-03-28T23:30:00Z').nextOpen, '2026-03-29T01:00:00.000Z');
    assert.equal(state([berlinNights], '2026-03-29T01:30:00Z').closesAt, '2026-03-29T04:00:00.000Z');
  });

  it('takes the earliest of several windows and merges windows that overlap', () => {
    const tokyo: MaintenanceWindow = { cron: '30 22 * * 1-5', durationSeconds: 3600, timeZone: 'Asia/Tokyo' };
    // Monday 2026-06-01 22:30 Tokyo = 13:30 UTC.
    assert.deepEqual(state([berlinNights, tokyo], '2026-06-01T12:00:00Z'), {
      open: false,
      nextOpen: '2026-06-01T13:30:00.000Z',
      closesAt: null,
    });
    const twice: MaintenanceWindow = { cron: '0 12,13 * * *', durationSeconds: 5400, timeZone: 'UTC' };
    assert.deepEqual(state([twice], '2026-06-01T12:10:00Z'), {
      open: true,
      nextOpen: '2026-06-02T12:00:00.000Z',
      closesAt: '2026-06-01T14:30:00.000Z',
    });
  });
});

describe(parseWindow.name, () => {
  const error = (input: unknown) => {
    const parsed = parseWindow(input, 0);
    return 'error' in parsed ? parsed.error : undefined;
  };

  it('reads a window and normalises its spaces', () => {
    assert.deepEqual(parseWindow({ cron: ' 0  2 * * 1-5 ', duration_seconds: 10800, time_zone: 'Europe/Berlin' }, 0), {
      window: { cron: '0 2 * * 1-5', durationSeconds: 10800, timeZone: 'Europe/Berlin' },
    });
  });

  it('names the field that is wrong', () => {
    assert.equal(error({ cron: '0 2 * *', duration_seconds: 60, time_zone: 'UTC' })?.field, 'windows[0].cron');
    assert.equal(error({ cron: '0 0 2 * * *', duration_seconds: 60, time_zone: 'UTC' })?.field, 'windows[0].cron');
    assert.match(
      error({ cron: '61 2 * * *', duration_seconds: 60, time_zone: 'UTC' })?.message ?? '',
      /^windows\[0\]\.cron is not a valid/,
    );
    assert.equal(error({ cron: '0 2 * * *', duration_seconds: 60, time_zone: 'Mars/Olympus' })?.field, 'windows[0].time_zone');
    assert.equal(error({ cron: '0 2 * * *', duration_seconds: 0, time_zone: 'UTC' })?.field, 'windows[0].duration_seconds');
    assert.equal(error({ cron: '0 2 * * *', duration_seconds: 1.5, time_zone: 'UTC' })?.field, 'windows[0].duration_seconds');
    assert.equal(error('0 2 * * *')?.field, 'windows[0]');
    assert.equal(error({ cron: `0 2 ${'1,'.repeat(40)}1 * *`, duration_seconds: 60, time_zone: 'UTC' })?.field, 'windows[0].cron');
    const second = parseWindows([{ cron: '0 2 * * *', duration_seconds: 60, time_zone: 'UTC' }, { cron: 'x' }]);
    assert.equal('error' in second && second.error.field, 'windows[1].cron');
    const notList = parseWindows('nope');
    assert.equal('error' in notList && notList.error.field, 'windows');
  });

  it('knows IANA zones', () => {
    assert.equal(isTimeZone('Asia/Tokyo'), true);
    assert.equal(isTimeZone('UTC'), true);
    assert.equal(isTimeZone('Europe/Nowhere'), false);
    assert.equal(isTimeZone(''), false);
  });
});
