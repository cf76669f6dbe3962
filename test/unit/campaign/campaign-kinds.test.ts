/**
 * The own kind in the campaign: which seeds run AdvancedDaemonSets, the
 * strategies they are given (always ones the kind's CEL rules admit), and
 * the replay command pinning a run's kind.
 */
import { describe, expect, it } from 'vitest';
import { summarise } from '../../campaign/campaign-summary.js';
import { ClusterView } from '../../campaign/checker/cluster-view.js';
import { unseenWrites } from '../../campaign/checker/convergence.js';
import type { DaemonSet } from '../../campaign/checker/kube-objects.js';
import { replayCommand } from '../../campaign/run-campaign.js';
import { planOf } from '../../campaign/run-types.js';
import { SeededRandom } from '../../campaign/seeded-random.js';
import {
  drawAdvancedStrategy,
  PROMOTE_PATCH,
} from '../../campaign/workload-plan.js';
import { runResult } from './run-fixtures.js';

const options = (seed: number, ownKindShare?: number) => ({
  seed,
  nodes: 5,
  daemonSets: 2,
  faultMs: 20_000,
  convergeTimeoutMs: 120_000,
  ...(ownKindShare === undefined ? {} : { ownKindShare }),
});

const seeds = Array.from({ length: 200 }, (_, i) => 2_000 + i);

describe('planOf: the run kind', () => {
  it('runs apps/v1 only by default, so seeds run before the own kind replay unchanged', () => {
    // Act
    const kinds = new Set(seeds.map((s) => planOf(options(s)).kind));
    // Assess
    expect(kinds).toEqual(new Set(['DaemonSet']));
  });

  it('draws the kind from the seed alone: a share of about P, the same kind for the same seed', () => {
    // Act
    const kinds = seeds.map((s) => planOf(options(s, 0.5)).kind);
    const again = seeds.map((s) => planOf(options(s, 0.5)).kind);
    // Assess
    const own = kinds.filter((k) => k === 'AdvancedDaemonSet').length;
    expect(own).toBeGreaterThan(70);
    expect(own).toBeLessThan(130);
    expect(again).toEqual(kinds);
    expect(seeds.map((s) => planOf(options(s, 1)).kind)).not.toContain(
      'DaemonSet'
    );
  });

  it('leaves a seed’s faults and workload as they were whatever the share', () => {
    for (const seed of seeds.slice(0, 20)) {
      // Act
      const before = planOf(options(seed));
      const after = planOf(options(seed, 1));
      // Assess
      expect(after.plan).toEqual(before.plan);
      expect(after.actions).toEqual(before.actions);
    }
  });
});

type Rolling = {
  type: string;
  rollingUpdate?: {
    rollingUpdateType: string;
    maxSurge: number | string;
    maxUnavailable: number | string;
    partition: number | string;
    paused: boolean;
    selector: object | null;
  };
};

const isZero = (v: number | string) => v === 0 || v === '0%';

describe('drawAdvancedStrategy', () => {
  const drawn = Array.from(
    { length: 400 },
    (_, i) => drawAdvancedStrategy(new SeededRandom(i)) as Rolling
  );
  const rolling = drawn.flatMap((s) =>
    s.rollingUpdate ? [s.rollingUpdate] : []
  );

  it('draws only what the kind admits: a surge neither with maxUnavailable nor in place, never both zero', () => {
    // Assess
    for (const r of rolling) {
      expect(isZero(r.maxSurge) || isZero(r.maxUnavailable)).toBe(true);
      expect(isZero(r.maxSurge) && isZero(r.maxUnavailable)).toBe(false);
      if (r.rollingUpdateType === 'InPlaceIfPossible') {
        expect(isZero(r.maxSurge)).toBe(true);
      }
    }
  });

  it('draws every control, each explicit so a merge patch replaces the last', () => {
    // Assess
    expect(drawn.some((s) => s.type === 'OnDelete')).toBe(true);
    expect(
      rolling.some((r) => r.rollingUpdateType === 'InPlaceIfPossible')
    ).toBe(true);
    expect(rolling.some((r) => !isZero(r.maxSurge))).toBe(true);
    expect(rolling.some((r) => r.partition !== 0)).toBe(true);
    expect(rolling.some((r) => r.paused)).toBe(true);
    expect(rolling.some((r) => r.selector !== null)).toBe(true);
    for (const r of rolling) {
      expect(Object.keys(r).sort()).toEqual([
        'maxSurge',
        'maxUnavailable',
        'partition',
        'paused',
        'rollingUpdateType',
        'selector',
      ]);
    }
  });

  it('is ended by the promote patch: partition 0, resumed, no canary selector', () => {
    // Assess
    expect(PROMOTE_PATCH.spec.updateStrategy.rollingUpdate).toEqual({
      partition: 0,
      paused: false,
      selector: null,
    });
  });
});

const result = runResult;

describe('a run’s kind in the campaign’s output', () => {
  it('pins the kind in the replay command and counts own-kind runs in the summary', () => {
    // Act
    const own = replayCommand(result(7, 'AdvancedDaemonSet', 1));
    const native = replayCommand(result(8, 'DaemonSet', 1));
    const summary = summarise([
      result(7, 'AdvancedDaemonSet'),
      result(8, 'DaemonSet'),
      result(9, 'AdvancedDaemonSet'),
    ]);
    // Assess
    expect(own).toMatch(/ --own-kind 1$/);
    expect(native).toMatch(/ --own-kind 0$/);
    expect(summary.ownKindRuns).toBe(2);
  });
});

describe('unseenWrites', () => {
  const viewWith = (generation: number) => {
    const view = new ClusterView();
    // Keyed by name, as the checker's intake stores the run namespace's objects.
    view.store('daemonSet').set('ds-0', {
      metadata: { name: 'ds-0', namespace: 'ns', uid: 'u', generation },
      spec: { selector: {}, template: {} },
    } as unknown as DaemonSet);
    return view;
  };

  it('holds convergence back until the view shows the generation the runner last wrote', () => {
    // Prepare
    const written = new Map([['ds-0', 3]]);
    // Act
    const behind = unseenWrites(viewWith(2), written);
    const caughtUp = unseenWrites(viewWith(3), written);
    const missing = unseenWrites(new ClusterView(), written);
    // Assess
    expect(behind.map((d) => d.detail)).toEqual([
      'ds-0: the checker sees generation 2, the runner wrote 3',
    ]);
    expect(caughtUp).toEqual([]);
    expect(missing).toHaveLength(1);
  });
});
