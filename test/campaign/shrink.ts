/**
 * Shrinks a failing run: drops fault windows and workload actions while the
 * same invariant still breaks, so the report shows the fewest faults and
 * actions that reproduce it (greedy: halves first, then one at a time).
 */
import type { FaultWindow } from './fault-plan.js';
import type { PlannedAction } from './workload.js';

/** A candidate: the windows and actions of a run. */
export interface RunShape {
  windows: FaultWindow[];
  actions: PlannedAction[];
}

/** Returns the shapes to try next: halves, then each item left out. */
export const smallerShapes = (shape: RunShape): RunShape[] => {
  const out: RunShape[] = [];
  const halve = <T>(items: T[]): [T[], T[]] => {
    const mid = Math.ceil(items.length / 2);
    return [items.slice(0, mid), items.slice(mid)];
  };
  if (shape.windows.length > 1) {
    for (const windows of halve(shape.windows)) out.push({ ...shape, windows });
  }
  if (shape.actions.length > 1) {
    for (const actions of halve(shape.actions)) out.push({ ...shape, actions });
  }
  shape.windows.forEach((_, i) => {
    out.push({ ...shape, windows: shape.windows.filter((__, j) => j !== i) });
  });
  shape.actions.forEach((_, i) => {
    out.push({ ...shape, actions: shape.actions.filter((__, j) => j !== i) });
  });
  return out;
};

/**
 * Shrinks `shape` with `fails` (a re-run that says whether the violation
 * came back), within `budget` re-runs; returns the smallest failing shape.
 */
export const shrinkRun = async (
  shape: RunShape,
  fails: (candidate: RunShape) => Promise<boolean>,
  budget: number
): Promise<{ shape: RunShape; reruns: number }> => {
  let best = shape;
  let reruns = 0;
  let progress = true;
  while (progress && reruns < budget) {
    progress = false;
    for (const candidate of smallerShapes(best)) {
      if (reruns >= budget) break;
      reruns++;
      if (await fails(candidate)) {
        best = candidate;
        progress = true;
        break;
      }
    }
  }
  return { shape: best, reruns };
};
