import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { transition, type RolloutAction, type RolloutStatus } from './lifecycle.js';

const STATUSES: RolloutStatus[] = ['draft', 'active', 'paused', 'finished', 'cancelled'];
const ACTIONS: RolloutAction[] = ['start', 'pause', 'resume', 'cancel', 'finish', 'reopen'];

/**
 * The lifecycle written out by hand from the docstring:
 * `draft` → `active` ⇄ `paused` → `finished` (→ `active` again on a retry); `cancelled` from any
 * unfinished state. A rollout finishes once every targeted device is confirmed, failed or fell back.
 */
const ALLOWED: Record<string, RolloutStatus> = {
  'draft start': 'active',
  'draft cancel': 'cancelled',
  'active pause': 'paused',
  'active cancel': 'cancelled',
  'active finish': 'finished',
  'paused resume': 'active',
  'paused cancel': 'cancelled',
  'paused finish': 'finished',
  'finished reopen': 'active',
};

describe(transition.name, () => {
  describe('allowed transitions', () => {
    for (const [move, to] of Object.entries(ALLOWED)) {
      const [from, action] = move.split(' ') as [RolloutStatus, RolloutAction];
      it(`${from} --${action}--> ${to}`, () => {
        assert.equal(transition(from, action), to);
      });
    }
  });

  describe('refused transitions', () => {
    for (const from of STATUSES) {
      for (const action of ACTIONS) {
        if (`${from} ${action}` in ALLOWED) continue;
        it(`${from} --${action}--> refused`, () => {
          assert.equal(transition(from, action), null);
        });
      }
    }
  });

  it('cancelled is terminal; finished only reopens (a retry of its failed devices)', () => {
    for (const action of ACTIONS) assert.equal(transition('cancelled', action), null, `cancelled ${action}`);
    for (const action of ACTIONS) assert.equal(transition('finished', action), action === 'reopen' ? 'active' : null, `finished ${action}`);
  });

  it('a draft cannot be paused, resumed or finished before it starts', () => {
    assert.equal(transition('draft', 'pause'), null);
    assert.equal(transition('draft', 'resume'), null);
    assert.equal(transition('draft', 'finish'), null);
  });

  it('a started rollout cannot be started again', () => {
    assert.equal(transition('active', 'start'), null);
    assert.equal(transition('paused', 'start'), null);
  });

  it('walks draft → active → paused → active → finished', () => {
    let status: RolloutStatus = 'draft';
    for (const [action, expected] of [
      ['start', 'active'],
      ['pause', 'paused'],
      ['resume', 'active'],
      ['finish', 'finished'],
    ] as const) {
      const next = transition(status, action);
      assert.equal(next, expected, action);
      status = next!;
    }
  });
});
