/**
 * Bugs planted in the native OnDelete mode, to show the checker finds
 * them: the product's reads of a DaemonSet come back with its rollout
 * annotation rewritten, so the sync plans from controls the user did not
 * set — `on-delete-overspend` deletes old pods as if maxUnavailable were
 * 100 % (beyond the budget), `on-delete-ignore-partition` as if no
 * partition held old pods back. The checker reads the real annotation.
 */
import type { ClusterReader } from '#lib/ports/index.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { ROLLOUT_ANNOTATION } from '#lib/reconcile/on-delete/rollout-annotation.js';

/** The OnDelete mode's planted bugs. */
export const ON_DELETE_PLANTS = [
  'on-delete-overspend',
  'on-delete-ignore-partition',
] as const;
export type OnDeletePlant = (typeof ON_DELETE_PLANTS)[number];

/** Returns the controls as the planted bug misreads them. */
const misread = (
  bug: OnDeletePlant,
  controls: Record<string, unknown>
): Record<string, unknown> => {
  if (bug === 'on-delete-overspend') {
    return { ...controls, maxUnavailable: '100%' };
  }
  const { partition: _ignored, ...rest } = controls;
  return rest;
};

/** Returns the DaemonSet with its rollout annotation misread by `bug`. */
export const misreadDaemonSet = (
  bug: OnDeletePlant,
  ds: DaemonSet | undefined
): DaemonSet | undefined => {
  const raw = ds?.metadata?.annotations?.[ROLLOUT_ANNOTATION];
  if (ds === undefined || raw === undefined) return ds;
  let controls: unknown;
  try {
    controls = JSON.parse(raw);
  } catch {
    return ds;
  }
  if (typeof controls !== 'object' || controls === null) return ds;
  return {
    ...ds,
    metadata: {
      ...ds.metadata,
      annotations: {
        ...ds.metadata?.annotations,
        [ROLLOUT_ANNOTATION]: JSON.stringify(
          misread(bug, controls as Record<string, unknown>)
        ),
      },
    },
  };
};

/** Returns `reader` answering every DaemonSet read misread by `bug`. */
export const misreadingControls = (
  reader: ClusterReader,
  bug: OnDeletePlant
): ClusterReader =>
  new Proxy(reader, {
    get: (target, name) => {
      if (name === 'getDaemonSet' || name === 'getDaemonSetFresh') {
        const read = target[name].bind(target);
        return async (ns: string, dsName: string) =>
          misreadDaemonSet(bug, await read(ns, dsName));
      }
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
