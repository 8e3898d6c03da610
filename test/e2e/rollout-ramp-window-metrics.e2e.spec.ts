import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { get, startTestApp, type TestApp } from '#test/support/harness.js';
import { rolloutDriver } from '#test/support/rollouts.js';
import { parseExposition, samplesOf, valueOf, type Sample } from '#test/support/prometheus.js';

/**
 * The ramp and maintenance-window gauges (docs/decisions.md §10.1, README "Operations") as
 * Prometheus scrapes them from {operator_url}/metrics, while devices ask over HTTP and the app's
 * test clock moves.
 */
describe('metrics of ramped, windowed rollouts (docs/decisions.md §10.1)', () => {
  let app: TestApp;
  let bearer: string;
  const { fleet, plan, next } = rolloutDriver(() => ({ app, bearer }), '6D');

  async function scrape(): Promise<Sample[]> {
    const answer = await get(`${app.urls.operator}/metrics`);
    assert.equal(answer.status, 200, answer.text);
    return parseExposition(answer.text);
  }

  before(async () => {
    app = await startTestApp();
    bearer = await app.createOperatorToken('ramp-window-metrics-spec');
  });
  after(() => app.close());

  it('shows the allowance, the minute’s offers, whether the window is open and the seconds until it opens', async () => {
    // One second into a minute, so each step's polls fall in one minute.
    const minute = Math.ceil(app.clock.now() / 60_000) * 60_000;
    app.clock.ms = minute + 1000;
    const opensAt = minute + 2 * 3600_000;
    const at = new Date(opensAt);
    const windows = [{ cron: `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`, duration_seconds: 3600, time_zone: 'UTC' }];
    const f = await fleet(5);
    const id = await plan(f, {
      windows,
      ramp: { base_per_minute: 2, increment_factor: 2, increment_every: { offered: 3 }, maximum_per_minute: 10 },
    });
    const plain = await fleet(1);
    const plainId = await plan(plain);
    const labels = { tenant: f.tenant.name, rollout: String(id), status: 'active' };
    const read = (samples: Sample[]) => [
      valueOf(samples, 'firmledger_rollout_window_open', labels),
      valueOf(samples, 'firmledger_rollout_next_window_seconds', labels),
      valueOf(samples, 'firmledger_rollout_ramp_allowance_per_minute', labels),
      valueOf(samples, 'firmledger_rollout_ramp_offers_this_minute', labels),
    ];

    // Closed: the window opens in 2 hours less the second past the minute; nobody is offered it.
    for (const mac of f.macs) assert.equal(await next(f, mac), null);
    let samples = await scrape();
    assert.deepEqual(read(samples), [0, 7199, 2, 0]);
    // A rollout without windows or ramp has none of these gauges.
    for (const name of ['window_open', 'next_window_seconds', 'ramp_allowance_per_minute', 'ramp_offers_this_minute']) {
      assert.deepEqual(samplesOf(samples, `firmledger_rollout_${name}`, { rollout: String(plainId) }), [], name);
    }

    // Open: 2 of 5 asking devices are offered it; 2 offers are short of the first increment (3).
    app.clock.ms = opensAt + 1000;
    f.token = await app.login(f.tenant);
    const first = await Promise.all(f.macs.map((mac) => next(f, mac)));
    assert.equal(first.filter((answer) => answer === String(id)).length, 2, JSON.stringify(first));
    assert.deepEqual(read(await scrape()), [1, 0, 2, 2]);

    // The next minute, devices asking one by one: the third offer reaches the increment (4 a
    // minute), so the other 3 are all offered it; 5 offers so far, still one increment.
    app.clock.advance(60);
    assert.deepEqual(read(await scrape()), [1, 0, 2, 0], 'a new minute starts with no offers made');
    const second: (string | null)[] = [];
    for (const mac of f.macs) second.push(await next(f, mac));
    assert.equal(second.filter((answer) => answer === String(id)).length, 5, JSON.stringify(second));
    assert.deepEqual(read(await scrape()), [1, 0, 4, 3]);

    // After the hour the window closes; the next opens a day after this one.
    app.clock.ms = opensAt + 3600_000 + 1000;
    samples = await scrape();
    assert.deepEqual(read(samples).slice(0, 2), [0, 23 * 3600 - 1]);
  });
});
