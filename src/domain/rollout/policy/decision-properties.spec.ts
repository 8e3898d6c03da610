import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decide, versionSkip, type OfferWhen } from './decision.js';
import { DEVICE_STATES, noDevices, SETTLED_STATES, type DeviceState } from './device-states.js';
import { chooseNextRollout, type RolloutCandidate } from './next-rollout.js';
import { nextStep } from './next-step.js';

/** Versions that order as versions, and names that do not (Mender artifact names, build ids). */
const VERSIONS = ['', '1.0.0', '1.9', '1.10', '2.0.0', '2.0', 'v2.0.0', '9.0.0', '3-rc1', 'fw-2.0', 'harness-initial-1.0', 'release-7'];

const candidateArb = (id: number): fc.Arbitrary<RolloutCandidate> =>
  fc.record({
    id: fc.constant(id),
    name: fc.constant(`r${id}`),
    priority: fc.integer({ min: 1, max: 3 }),
    startDate: fc.integer({ min: 0, max: 3 }),
    downgrade: fc.boolean(),
    offerWhen: fc.constantFrom<OfferWhen>('newer', 'different'),
    firmwareId: fc.constant(100 + id),
    version: fc.constantFrom(...VERSIONS),
    state: fc.constantFrom<DeviceState | null>(null, ...DEVICE_STATES.filter((s) => s !== 'installed')),
    wave: fc.integer({ min: 1, max: 3 }),
    currentWave: fc.integer({ min: 1, max: 3 }),
    waveCount: fc.constant(3),
  });

const candidatesArb = fc.integer({ min: 0, max: 5 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => candidateArb(i + 1))));

describe('one decision: the poll, the settling and the finish agree (docs/decisions.md §10.5)', () => {
  it('the next rollout is one the decision offers, and no candidate it offers ranks before it', () => {
    fc.assert(
      fc.property(candidatesArb, fc.constantFrom(...VERSIONS), (candidates, running) => {
        const chosen = chooseNextRollout(candidates, running);
        const offered = candidates.filter(
          (c) =>
            decide({ version: running, state: c.state, wave: c.wave }, { ...c, status: 'active', startDate: undefined }, 0).kind ===
            'offer',
        );
        if (chosen === null) return offered.length === 0;
        const rank = (c: RolloutCandidate) => [c.priority, c.startDate, c.id];
        const before = (a: RolloutCandidate, b: RolloutCandidate) => {
          const [x, y] = [rank(a), rank(b)];
          return x[0] !== y[0] ? x[0] < y[0] : x[1] !== y[1] ? x[1] < y[1] : x[2] < y[2];
        };
        return offered.includes(chosen) && !offered.some((c) => before(c, chosen));
      }),
    );
  });

  it('a device the version rule skips is never offered, whatever its state, wave or the rollout status', () => {
    fc.assert(
      fc.property(candidateArb(1), fc.constantFrom(...VERSIONS), (candidate, running) => {
        const skip = versionSkip(running, candidate);
        fc.pre(skip !== null);
        return chooseNextRollout([candidate], running) === null;
      }),
    );
  });

  it('a rollout finishes exactly when every target is settled, skipped ones included', () => {
    const stateArb = fc.constantFrom(...DEVICE_STATES);
    fc.assert(
      fc.property(fc.array(stateArb, { minLength: 1, maxLength: 12 }), (states) => {
        const counts = noDevices();
        for (const state of states) counts[state]++;
        counts.targeted = states.length;
        const step = nextStep(
          { status: 'active', currentWave: 1, approval: 'auto', awaitingApproval: false, successThreshold: 1, errorThreshold: null },
          { waves: [counts], notRegistered: 0 },
        );
        const allSettled = states.every((state) => SETTLED_STATES.includes(state));
        return (step.kind === 'finish') === allSettled;
      }),
    );
  });
});
