/**
 * What a run's workload is made of, drawn from its seed: the actions and
 * their times, and the update strategies DaemonSets are given.
 */
import type { SeededRandom } from './seeded-random.js';

/** Every action of the workload. */
export const ACTIONS = [
  'template-change',
  'strategy-change',
  'rollout-undo',
  'rollout-restart',
  'add-node',
  'delete-node',
  'label-flip',
  'taint-flip',
  'fail-pod',
  'delete-pod',
] as const;
export type ActionKind = (typeof ACTIONS)[number];

/** One planned action. */
export interface PlannedAction {
  atMs: number;
  kind: ActionKind;
}

/** The taint some DaemonSets tolerate. */
export const CAMPAIGN_TAINT = 'campaign.dsr.dev/taint';

/** Draws `count` actions spread over `durationMs`. */
export const drawWorkload = (
  random: SeededRandom,
  durationMs: number,
  count: number
): PlannedAction[] =>
  Array.from({ length: count }, () => ({
    atMs: random.int(500, durationMs),
    kind: random.pick(ACTIONS),
  })).sort((a, b) => a.atMs - b.atMs);

/** What the workload tells the checker. */
export interface WorkloadObserver {
  note(text: string): void;
  markChaos(podName: string): void;
  markForeign(podName: string): void;
}

/** Draws a RollingUpdate (maxUnavailable and maxSurge, int or %) or OnDelete. */
export const drawStrategy = (random: SeededRandom): object => {
  if (random.chance(0.2)) return { type: 'OnDelete' };
  const maxSurge = random.pick([0, 0, 1, '25%'] as const);
  // The API allows a surge only with maxUnavailable 0.
  const maxUnavailable =
    maxSurge === 0 ? random.pick([1, 2, '25%', '50%'] as const) : 0;
  return { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } };
};

/**
 * Draws an AdvancedDaemonSet's strategy: OnDelete, or a RollingUpdate with
 * Kruise's controls on top of drawStrategy's budgets — an in-place image
 * update (never with a surge, which the kind refuses), a partition, a
 * pause, a canary selector (tier a only). Each control is explicit (false,
 * 0, none), so a merge patch of the drawn strategy replaces the last one.
 */
export const drawAdvancedStrategy = (random: SeededRandom): object => {
  if (random.chance(0.15)) return { type: 'OnDelete' };
  const inPlace = random.chance(0.3);
  const maxSurge = inPlace ? 0 : random.pick([0, 0, 1, '25%'] as const);
  const maxUnavailable =
    maxSurge === 0 ? random.pick([1, 2, '25%', '50%'] as const) : 0;
  return {
    type: 'RollingUpdate',
    rollingUpdate: {
      rollingUpdateType: inPlace ? 'InPlaceIfPossible' : 'Standard',
      maxSurge,
      maxUnavailable,
      partition: random.chance(0.4) ? random.pick([1, 2, '50%'] as const) : 0,
      paused: random.chance(0.25),
      selector: random.chance(0.3) ? { matchLabels: { tier: 'a' } } : null,
    },
  };
};

/**
 * The merge patch that ends an AdvancedDaemonSet's held rollout, as a user
 * finishing one sends it: partition 0, not paused, no canary selector.
 */
export const PROMOTE_PATCH = {
  spec: {
    updateStrategy: {
      rollingUpdate: { partition: 0, paused: false, selector: null },
    },
  },
};

/** Returns a copy of `value` without its null fields (they mean "remove" only in a patch). */
export const withoutNulls = (value: object): object =>
  JSON.parse(JSON.stringify(value, (_k, v: unknown) => v ?? undefined));

/** The rollout controls of an OnDelete run's DaemonSet (its annotation). */
export interface OnDeleteControls {
  maxUnavailable: number | string;
  partition?: number | string;
  paused?: boolean;
  selector?: { matchLabels: Record<string, string> };
}

/**
 * Draws the `apps.dsr.dev/rollout` controls of an OnDelete DaemonSet:
 * maxUnavailable (int or %), a partition (1, 2 or 50 %) or none, a pause,
 * a canary selector (tier a).
 */
export const drawOnDeleteControls = (
  random: SeededRandom
): OnDeleteControls => {
  const maxUnavailable = random.pick([1, 2, '25%', '50%'] as const);
  const partition = random.chance(0.4)
    ? random.pick([1, 2, '50%'] as const)
    : undefined;
  const paused = random.chance(0.25);
  const canary = random.chance(0.3);
  return {
    maxUnavailable,
    ...(partition === undefined ? {} : { partition }),
    ...(paused ? { paused } : {}),
    ...(canary ? { selector: { matchLabels: { tier: 'a' } } } : {}),
  };
};

/**
 * Returns the controls with the rollout resumed and its canary selector
 * gone, as a user finishing a rollout sets them; the partition stays, so
 * "converged" means exactly its old pods held.
 */
export const promotedOnDeleteControls = ({
  selector: _canary,
  paused: _paused,
  ...rest
}: OnDeleteControls): OnDeleteControls => rest;
