import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EntityManager } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import type { LedgerService } from '#src/domain/ledger/ledger.service.js';
import type { DeviceStateRepository, RolloutProgress } from './device-state.repository.js';
import { noDevices, type StateCounts } from './policy/device-states.js';
import { RolloutPlanService } from './rollout-plan.service.js';
import type { Rollout } from './rollout.entity.js';
import type { RolloutRepository } from './rollout.repository.js';

/**
 * {@link RolloutPlanService.settle} carried out against in-memory repositories (no database): each
 * step the policy decides becomes one guarded update of the rollout and its ledger entry, and a
 * finish is checked against the whole group first. The repositories are fakes; the service is real.
 */

/** Counts of one wave from the states given; `targeted` is their sum. */
function wave(states: Partial<Omit<StateCounts, 'targeted'>>): StateCounts {
  const counts = { ...noDevices(), ...states };
  counts.targeted = Object.values(states).reduce((n, v) => n + (v ?? 0), 0);
  return counts;
}

function rollout(overrides: Partial<Rollout> = {}): Rollout {
  return {
    id: 7,
    tenantId: 1,
    name: 'r',
    firmwareId: 1,
    groupId: 1,
    priority: 1,
    startDate: 0,
    status: 'active',
    downgrade: false,
    offerWhen: 'newer',
    createdAt: 0,
    waves: '["50%","100%"]',
    successThreshold: 0.9,
    errorThreshold: 0.2,
    approval: 'auto',
    currentWave: 1,
    awaitingApproval: false,
    pauseReason: null,
    waveStarts: '[0]',
    ddiActionType: 'forced',
    windows: '[]',
    ramp: null,
    abortCriteria: '[]',
    timeoutOffered: null,
    timeoutDownloading: null,
    timeoutInstalled: null,
    rollback: null,
    rollbackRolloutId: null,
    rollbackOf: null,
    ...overrides,
  };
}

/** A service over fakes: the rollout kept in memory, counts as given, ledger entries recorded. */
function newTestService(start: Rollout, counts: { kept: StateCounts[]; whole?: RolloutProgress }) {
  let stored = { ...start };
  const ledger: { type: string; state: Record<string, unknown> }[] = [];
  let wholeReads = 0;
  const rollouts = {
    findRollout: (tenantId: number, id: number) => Promise.resolve(tenantId === stored.tenantId && id === stored.id ? { ...stored } : null),
    guardedUpdate: (_m: EntityManager, id: number, where: Partial<Record<keyof Rollout, unknown>>, changes: Partial<Rollout>) => {
      const matches = Object.entries(where).every(([column, value]) =>
        Array.isArray(value) ? value.includes(stored[column as keyof Rollout]) : stored[column as keyof Rollout] === value,
      );
      if (id !== stored.id || !matches) return Promise.resolve(false);
      stored = { ...stored, ...changes };
      return Promise.resolve(true);
    },
  };
  const states = {
    waveCounts: () => Promise.resolve(counts.kept.map((c) => ({ ...c }))),
    progress: () => {
      wholeReads++;
      return Promise.resolve(counts.whole ?? { waves: counts.kept, notApplicable: 0, notRegistered: 0 });
    },
  };
  const ledgerService = {
    append: (_m: EntityManager, entry: { type: string; state: Record<string, unknown> }) => {
      ledger.push({ type: entry.type, state: entry.state });
      return Promise.resolve();
    },
  };
  const clock = new (class extends Clock {
    now(): number {
      return 1_000;
    }
  })();
  const service = new RolloutPlanService(
    rollouts as unknown as RolloutRepository,
    states as unknown as DeviceStateRepository,
    undefined as never,
    undefined as never,
    undefined as never,
    undefined as never,
    ledgerService as unknown as LedgerService,
    clock,
  );
  const settle = () => service.settle({} as EntityManager, start.id, start.tenantId);
  return { settle, rollout: () => stored, ledger: () => ledger.map((e) => e.type), entries: () => ledger, wholeReads: () => wholeReads };
}

describe(`${RolloutPlanService.name}.settle`, () => {
  it('starts the next wave once the current one passed, and records it', async () => {
    const t = newTestService(rollout(), { kept: [wave({ confirmed: 9, offered: 1 }), wave({ pending: 10 })] });
    await t.settle();
    assert.equal(t.rollout().currentWave, 2);
    assert.deepEqual(JSON.parse(t.rollout().waveStarts), [0, 1_000]);
    assert.deepEqual(t.ledger(), ['rollout.wave_started']);
    assert.equal(t.wholeReads(), 0, 'a wave start reads only the kept counts');
  });

  it('pauses with the reason kept when a started wave is over its error threshold', async () => {
    const t = newTestService(rollout(), { kept: [wave({ failed: 3, confirmed: 7 }), wave({ pending: 10 })] });
    await t.settle();
    assert.equal(t.rollout().status, 'paused');
    assert.equal(t.rollout().pauseReason, 'wave 1: 3 of 10 devices failed or fell back (30%), over the error threshold 20%');
    assert.deepEqual(t.ledger(), ['rollout.paused']);
  });

  it('marks a passed wave as waiting for approval once when approval is manual', async () => {
    const t = newTestService(rollout({ approval: 'manual' }), { kept: [wave({ confirmed: 10 }), wave({ pending: 10 })] });
    await t.settle();
    await t.settle();
    assert.equal(t.rollout().awaitingApproval, true);
    assert.equal(t.rollout().currentWave, 1);
    assert.deepEqual(t.ledger(), ['rollout.wave_passed']);
  });

  it('finishes when the whole group agrees, checked once the kept counts say every target settled', async () => {
    const settled = [wave({ confirmed: 5 }), wave({ confirmed: 4, failed: 1 })];
    const t = newTestService(rollout({ currentWave: 2 }), { kept: settled });
    await t.settle();
    assert.equal(t.rollout().status, 'finished');
    assert.deepEqual(t.ledger(), ['rollout.finished']);
    assert.equal(t.wholeReads(), 1);
  });

  it('does not finish while members of the group are not registered, though every target settled', async () => {
    const settled = [wave({ confirmed: 5 }), wave({ confirmed: 5 })];
    const t = newTestService(rollout({ currentWave: 2 }), {
      kept: settled,
      whole: { waves: settled, notApplicable: 0, notRegistered: 2 },
    });
    await t.settle();
    assert.equal(t.rollout().status, 'active');
    assert.deepEqual(t.ledger(), []);
  });

  it('starts waves one after the other in one settle while each passes, then stops at the last', async () => {
    const t = newTestService(rollout({ waves: '["10%","50%","100%"]' }), {
      kept: [wave({ confirmed: 1 }), wave({ confirmed: 4 }), wave({ pending: 5 })],
    });
    await t.settle();
    assert.equal(t.rollout().currentWave, 3);
    assert.deepEqual(t.ledger(), ['rollout.wave_started', 'rollout.wave_started']);
  });

  it('leaves a draft, finished or cancelled rollout alone', async () => {
    for (const status of ['draft', 'finished', 'cancelled'] as const) {
      const t = newTestService(rollout({ status }), { kept: [wave({ confirmed: 10 }), wave({ confirmed: 10 })] });
      await t.settle();
      assert.deepEqual([t.rollout().status, t.ledger()], [status, []], status);
    }
  });

  it('cancels on an abort criterion before the error threshold, recording the criterion and its numbers once', async () => {
    const abortCriteria = JSON.stringify([{ failure: 'failed', thresholdPercentage: 25, minFinished: 4, action: 'cancel' }]);
    const t = newTestService(rollout({ abortCriteria }), { kept: [wave({ failed: 3, confirmed: 7 }), wave({ pending: 10 })] });
    await t.settle();
    await t.settle();
    assert.equal(t.rollout().status, 'cancelled');
    assert.equal(t.rollout().pauseReason, 'abort criterion failed 25% (min 4 finished, cancel): 3 of 10 finished devices failed (30%)');
    assert.deepEqual(t.ledger(), ['rollout.cancelled']);
    const { state } = t.entries()[0];
    assert.deepEqual(state['abort'], {
      criterion: { failure: 'failed', threshold_percentage: 25, min_finished: 4, action: 'cancel' },
      finished: 10,
      failures: 3,
      percentage: 30,
    });
    assert.deepEqual(state['abortCriteria'], [{ failure: 'failed', threshold_percentage: 25, min_finished: 4, action: 'cancel' }]);
  });
});
