/**
 * A campaign run follows from its seed: the generator, the fault plan and
 * the shrinker that cuts a failing run down to what still breaks.
 */
import { describe, expect, it, vi } from 'vitest';
import { ActiveFaults, KILL_HOLD_MS } from '../../campaign/active-faults.js';
import { drawFaultPlan, type FaultWindow } from '../../campaign/fault-plan.js';
import { SeededRandom } from '../../campaign/seeded-random.js';
import { shrinkRun } from '../../campaign/shrink.js';
import type { PlannedAction } from '../../campaign/workload.js';

const draws = (r: SeededRandom, n: number) =>
  Array.from({ length: n }, () => r.next());

describe('SeededRandom', () => {
  it('draws the same sequence from the same seed, and another from another', () => {
    expect(draws(new SeededRandom(7), 5)).toEqual(
      draws(new SeededRandom(7), 5)
    );
    expect(draws(new SeededRandom(7), 5)).not.toEqual(
      draws(new SeededRandom(8), 5)
    );
  });

  it('forks sub-streams by label that do not depend on earlier draws', () => {
    const a = new SeededRandom(7);
    const b = new SeededRandom(7);
    draws(b, 10);
    expect(draws(a.fork('plan'), 3)).toEqual(draws(b.fork('plan'), 3));
    expect(draws(a.fork('plan'), 3)).not.toEqual(draws(a.fork('workload'), 3));
  });

  it('keeps int within its bounds', () => {
    const r = new SeededRandom(1);
    const values = Array.from({ length: 500 }, () => r.int(3, 5));
    expect(new Set(values)).toEqual(new Set([3, 4, 5]));
  });
});

describe('drawFaultPlan', () => {
  it('draws sorted windows inside the fault period, the same for the same seed', () => {
    const plan = drawFaultPlan(new SeededRandom(42), 20_000, 8);
    expect(plan).toEqual(drawFaultPlan(new SeededRandom(42), 20_000, 8));
    expect(plan.windows).toHaveLength(8);
    for (const w of plan.windows) {
      expect(w.fromMs).toBeGreaterThanOrEqual(0);
      expect(w.toMs).toBeLessThanOrEqual(20_000);
      expect(w.toMs - w.fromMs).toBeGreaterThanOrEqual(1_500);
      expect(w.rate).toBeGreaterThan(0);
      expect(w.rate).toBeLessThanOrEqual(1);
    }
    const starts = plan.windows.map((w) => w.fromMs);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });
});

describe('ActiveFaults', () => {
  const always = (kind: FaultWindow['kind']): FaultWindow => ({
    kind,
    fromMs: 0,
    toMs: 60_000,
    rate: 1,
  });

  it('injects nothing before it begins and after it stops', () => {
    const faults = new ActiveFaults(
      { windows: [always('api-429'), always('kill-reconcile')] },
      new SeededRandom(1)
    );
    expect(
      faults.api({ method: 'GET', path: '/', watch: false })
    ).toBeUndefined();
    faults.begin();
    expect(faults.api({ method: 'GET', path: '/', watch: false })?.kind).toBe(
      'api-429'
    );
    expect(faults.killPoint('reconcile')).toBeDefined();
    expect(faults.holdsControllerBack()).toBe(true);
    faults.stop();
    expect(
      faults.api({ method: 'GET', path: '/', watch: false })
    ).toBeUndefined();
    expect(faults.killPoint('reconcile')).toBeUndefined();
    expect(faults.holdsControllerBack()).toBe(false);
  });

  it('holds every cluster back for the visibility timeout after a reconcile or requeue is killed, not after a bridge kill', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const faults = new ActiveFaults({ windows: [] }, new SeededRandom(1));
      faults.begin();
      faults.applied('kill-watch-bridge');
      expect(faults.holdsControllerBack()).toBe(false);
      faults.applied('kill-reconcile');
      expect(faults.holdsControllerBack()).toBe(true);
      expect(faults.holdsEveryClusterBack()).toBe(true);
      vi.advanceTimersByTime(KILL_HOLD_MS - 1);
      expect(faults.holdsControllerBack()).toBe(true);
      vi.advanceTimersByTime(1);
      expect(faults.holdsControllerBack()).toBe(false);
      faults.applied('kill-requeue');
      expect(faults.holdsEveryClusterBack()).toBe(true);
      faults.stop();
      expect(faults.holdsControllerBack()).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('loses only the answers of DynamoDB writes, and counts what it injected', () => {
    const faults = new ActiveFaults(
      { windows: [always('dynamodb-lost-response')] },
      new SeededRandom(1)
    );
    faults.begin();
    expect(faults.dynamodb({ action: 'GetItem', input: {} })).toBeUndefined();
    expect(faults.dynamodb({ action: 'UpdateItem', input: {} })).toEqual({
      kind: 'lose-response',
    });
    expect(faults.injected).toEqual({ 'dynamodb-lost-response': 1 });
  });

  it('cuts and expires only watches', () => {
    const faults = new ActiveFaults(
      { windows: [always('watch-410')] },
      new SeededRandom(1)
    );
    faults.begin();
    expect(
      faults.api({ method: 'GET', path: '/api/v1/pods', watch: false })
    ).toBeUndefined();
    expect(
      faults.api({ method: 'GET', path: '/api/v1/pods', watch: true })
    ).toEqual({ kind: 'watch-410' });
  });
});

describe('shrinkRun', () => {
  const window = (kind: FaultWindow['kind']): FaultWindow => ({
    kind,
    fromMs: 0,
    toMs: 1,
    rate: 1,
  });
  const action = (kind: PlannedAction['kind']): PlannedAction => ({
    atMs: 0,
    kind,
  });

  it('cuts a run down to the fault and the action that together still fail', async () => {
    // Prepare: the "violation" needs an api-429 window and a node deletion.
    const shape = {
      windows: [
        window('api-5xx'),
        window('api-429'),
        window('sqs-delay'),
        window('watch-cut'),
      ],
      actions: [action('add-node'), action('delete-node'), action('fail-pod')],
    };
    const fails = async (s: typeof shape) =>
      s.windows.some((w) => w.kind === 'api-429') &&
      s.actions.some((a) => a.kind === 'delete-node');

    // Act
    const { shape: smallest, reruns } = await shrinkRun(shape, fails, 50);

    // Assess
    expect(smallest.windows.map((w) => w.kind)).toEqual(['api-429']);
    expect(smallest.actions.map((a) => a.kind)).toEqual(['delete-node']);
    expect(reruns).toBeLessThan(50);
  });

  it('stops at its budget of re-runs', async () => {
    const shape = {
      windows: [window('api-5xx'), window('api-429')],
      actions: [action('add-node')],
    };
    let calls = 0;
    const { reruns } = await shrinkRun(shape, async () => ++calls > 100, 3);
    expect(reruns).toBe(3);
    expect(calls).toBe(3);
  });
});
