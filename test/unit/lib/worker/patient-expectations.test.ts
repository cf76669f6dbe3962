/**
 * Patient expectations: asked whether they are met, they ask the store
 * again every poll until they are, or the wait or the sync's deadline ends;
 * everything else goes straight to the store.
 */
import { describe, expect, it } from 'vitest';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import {
  type PatienceOptions,
  withPatience,
} from '#lib/worker/patient-expectations.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';

const KEY = 'c/ns/agent';

/** A store with one create expected, and a sleep that steps the clock. */
const setUp = async () => {
  const clock = new FakeClock();
  const store = new MemoryExpectationsStore({ clock });
  await store.setExpectations(KEY, 1, 0);
  let asked = 0;
  const satisfied = store.satisfiedExpectations.bind(store);
  store.satisfiedExpectations = async (key) => {
    asked++;
    return satisfied(key);
  };
  const slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
    clock.step(ms);
  };
  return { clock, store, sleep, slept, asked: () => asked };
};

type SetUp = Awaited<ReturnType<typeof setUp>>;

/** The set-up's store made patient for `waitMs`, no deadline unless given. */
const patientOf = (
  s: SetUp,
  waitMs: number,
  more: Partial<PatienceOptions> = {}
) =>
  withPatience(s.store, {
    waitMs,
    deadlineMs: Number.POSITIVE_INFINITY,
    clock: s.clock,
    sleep: s.sleep,
    ...more,
  });

describe('withPatience', () => {
  it('answers at once when the expectations are met', async () => {
    // Prepare
    const s = await setUp();
    await s.store.creationObserved(KEY);
    const patient = patientOf(s, 2_000);
    // Act
    const met = await patient.satisfiedExpectations(KEY);
    // Assess
    expect(met).toBe(true);
    expect(s.slept).toEqual([]);
  });

  it('goes on as soon as the last pod is observed while it waits', async () => {
    // Prepare: the bridge observes the create during the third wait.
    const s = await setUp();
    const sleep = async (ms: number) => {
      await s.sleep(ms);
      if (s.slept.length === 3) await s.store.creationObserved(KEY);
    };
    const patient = patientOf(s, 2_000, { sleep });
    // Act
    const met = await patient.satisfiedExpectations(KEY);
    // Assess
    expect(met).toBe(true);
    expect(s.slept).toEqual([50, 50, 50]);
    expect(s.asked()).toBe(4);
  });

  it('waits on the sync’s first question only: the one after its own writes is answered at once, so the rolling update is skipped as upstream skips it (CI campaign seed 1005: unavailable-within-budget)', async () => {
    // Prepare: met at the sync's start; then the sync deletes a pod.
    const s = await setUp();
    await s.store.creationObserved(KEY);
    const patient = patientOf(s, 2_000);
    const atStart = await patient.satisfiedExpectations(KEY);
    await patient.setExpectations(KEY, 0, 1);
    // Act
    const afterWrites = await patient.satisfiedExpectations(KEY);
    // Assess
    expect(atStart).toBe(true);
    expect(afterWrites).toBe(false);
    expect(s.slept).toEqual([]);
  });

  it('answers unmet, as upstream would, once the wait is over', async () => {
    // Prepare
    const s = await setUp();
    const patient = patientOf(s, 200);
    // Act
    const met = await patient.satisfiedExpectations(KEY);
    // Assess
    expect(met).toBe(false);
    expect(s.slept.reduce((a, b) => a + b, 0)).toBe(200);
  });

  it('never waits past the sync’s deadline', async () => {
    // Prepare
    const s = await setUp();
    const patient = patientOf(s, 2_000, { deadlineMs: s.clock.now() + 120 });
    // Act
    const met = await patient.satisfiedExpectations(KEY);
    // Assess
    expect(met).toBe(false);
    expect(s.slept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(120);
  });

  it('stops after its polls even when the clock does not move', async () => {
    // Prepare
    const s = await setUp();
    const patient = patientOf(s, 500, { sleep: async () => undefined });
    // Act
    const met = await patient.satisfiedExpectations(KEY);
    // Assess
    expect(met).toBe(false);
    expect(s.asked()).toBe(11);
  });

  it('leaves the store as it is without a wait, and passes every other call through', async () => {
    // Prepare
    const s = await setUp();
    const patient = patientOf(s, 100);
    // Act
    await patient.lowerExpectations(KEY, 1, 0);
    // Assess
    expect(patientOf(s, 0)).toBe(s.store);
    expect(await s.store.satisfiedExpectations(KEY)).toBe(true);
  });
});
