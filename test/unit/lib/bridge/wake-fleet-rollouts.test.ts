/**
 * The dispatcher tick wakes the fleet rollouts an operator changed (their
 * `dsr fleet` verbs write only the state table) and those not yet pinned;
 * a settled one stays asleep, and one failed wake never stops the others.
 */
import { describe, expect, it } from 'vitest';
import { MemoryFleetRolloutStore } from '#lib/adapters/memory/memory-fleet-rollout-store.js';
import {
  FLEET_WAKE_WINDOW_MS,
  wakeFleetRollouts,
} from '#lib/bridge/wake-fleet-rollouts.js';
import { idleFleetRollout } from '#lib/fleet/fleet-rollout-state.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';
import { testFleetPolicy } from '../../../helpers/fleet-policies.js';

const policy = (name: string) =>
  testFleetPolicy(name, {
    clusters: { ids: ['c1'] },
    waves: [{ name: 'all', clusters: { ids: ['c1'] } }],
  });

/** A store with `settled` (pinned long ago), and the tick's queue. */
const newTick = async () => {
  const clock = new FakeClock(10_000_000);
  const store = new MemoryFleetRolloutStore();
  await store.applyPolicy(policy('settled'), 'source', 0);
  await store.saveState(
    'settled',
    { ...idleFleetRollout(), stable: { c1: 'A' } },
    ['c1: pinned on A'],
    1_000
  );
  const woken: string[] = [];
  const logger = new FakeLogger();
  const deps = {
    store,
    queue: { add: async (key: string) => void woken.push(key) },
    clock,
    logger,
  };
  return { clock, store, woken, logger, deps };
};

describe('wakeFleetRollouts', () => {
  it('wakes a policy just applied and leaves a settled one asleep', async () => {
    // Prepare
    const { clock, store, woken, deps } = await newTick();
    await store.applyPolicy(policy('fresh'), 'source', clock.now());
    // Act
    const count = await wakeFleetRollouts(deps);
    // Assess
    expect(woken).toEqual(['fleet:fresh']);
    expect(count).toBe(1);
  });

  it('wakes a settled policy whose controls changed within the window, not after it', async () => {
    // Prepare
    const { clock, store, woken, deps } = await newTick();
    await store.setControls('settled', { paused: true }, 'paused', clock.now());
    // Act
    clock.step(FLEET_WAKE_WINDOW_MS);
    await wakeFleetRollouts(deps);
    clock.step(1);
    await wakeFleetRollouts(deps);
    // Assess
    expect(woken).toEqual(['fleet:settled']);
  });

  it('keeps waking a policy that has pinned no cluster yet', async () => {
    // Prepare
    const { clock, store, woken, deps } = await newTick();
    await store.applyPolicy(policy('unpinned'), 'source', 0);
    // Act
    await wakeFleetRollouts(deps);
    clock.step(60 * FLEET_WAKE_WINDOW_MS);
    await wakeFleetRollouts(deps);
    // Assess
    expect(woken).toEqual(['fleet:unpinned', 'fleet:unpinned']);
  });

  it('logs a failed wake and still wakes the others', async () => {
    // Prepare
    const { clock, store, woken, logger, deps } = await newTick();
    await store.applyPolicy(policy('a'), 'source', clock.now());
    await store.applyPolicy(policy('b'), 'source', clock.now());
    const queue = {
      add: async (key: string) => {
        if (key === 'fleet:a') throw new Error('throttled');
        woken.push(key);
      },
    };
    // Act
    const count = await wakeFleetRollouts({ ...deps, queue });
    // Assess
    expect(woken).toEqual(['fleet:b']);
    expect(count).toBe(1);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ message: 'fleet rollout not woken' })
    );
  });
});
