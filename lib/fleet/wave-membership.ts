/**
 * Which registered clusters a fleet rollout policy covers, and which wave
 * each belongs to: the first wave whose cluster set names it. A covered
 * cluster that no wave names is held and reported, never rolled.
 */
import { parseLabelSelector } from '../reconcile/k8s/label-selector.js';
import type { ClusterSet, FleetPolicy } from './fleet-policy.js';

/** A registered cluster as a policy selects it. */
export interface FleetMember {
  id: string;
  labels: Readonly<Record<string, string>>;
}

/** Returns whether the set names the cluster (by id, or by its labels). */
export const clusterSetMatches = (set: ClusterSet, c: FleetMember): boolean =>
  (set.ids?.includes(c.id) ?? false) ||
  (set.selector !== undefined &&
    parseLabelSelector(set.selector)({ ...c.labels }));

/** The covered clusters by wave (in policy order), and those no wave names. */
export interface WaveMembership {
  waves: { name: string; clusters: string[] }[];
  unassigned: string[];
}

/** Returns the policy's clusters, each in its first matching wave, by id. */
export const assignWaves = (
  policy: FleetPolicy,
  registered: readonly FleetMember[]
): WaveMembership => {
  const covered = registered
    .filter((c) => clusterSetMatches(policy.clusters, c))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const waves = policy.waves.map((w) => ({
    name: w.name,
    clusters: [] as string[],
  }));
  const unassigned: string[] = [];
  for (const c of covered) {
    const i = policy.waves.findIndex((w) => clusterSetMatches(w.clusters, c));
    if (i < 0) unassigned.push(c.id);
    else waves[i]?.clusters.push(c.id);
  }
  return { waves, unassigned };
};
