/**
 * The wave plan `dsr fleet apply` prints: which registered clusters fall
 * in which wave of a policy, which the policy covers but no wave names
 * (held, never rolled), and which it selects but cannot roll (their
 * reconciler does not own the policy's kind).
 */

import { fleetMembersOf } from '../../fleet/fleet-members.js';
import type { FleetPolicy } from '../../fleet/fleet-policy.js';
import { clusterSetMatches } from '../../fleet/wave-membership.js';
import type { ClusterListing } from '../../ports/index.js';
import { invalidRecordLines, wavesOf } from './fleet-rollout-view.js';

/** The plan as `-o json|yaml` shows it. */
export interface WavePlan {
  waves: {
    name: string;
    approval: 'automatic' | 'manual';
    clusters: string[];
  }[];
  /** Covered, in no wave: held on their stable revision. */
  unassigned: string[];
  /** Selected, but their reconciler does not own the policy's kind. */
  otherKind: string[];
}

/** Returns the policy's wave plan over the registered clusters. */
export const planWaves = (
  policy: FleetPolicy,
  listing: ClusterListing
): WavePlan => {
  const { waves, unassigned } = wavesOf({ policy }, listing);
  const fits = new Set(
    fleetMembersOf(policy, listing.records).map((m) => m.id)
  );
  const otherKind = listing.records
    .filter(
      (r) =>
        !fits.has(r.id) &&
        clusterSetMatches(policy.clusters, { id: r.id, labels: r.labels ?? {} })
    )
    .map((r) => r.id);
  return {
    waves: waves.map((w, i) => ({
      name: w.name,
      approval: policy.waves[i]?.manualApproval ? 'manual' : 'automatic',
      clusters: w.clusters,
    })),
    unassigned,
    otherKind,
  };
};

/** Returns `n thing(s)`. */
const count = (n: number, thing: string): string =>
  `${n} ${thing}${n === 1 ? '' : 's'}`;

/** Returns the plan's lines, one per wave, then what it leaves out. */
export const wavePlanLines = (
  policy: FleetPolicy,
  plan: WavePlan,
  listing: ClusterListing
): string[] => {
  const lines = plan.waves.map(
    (w) =>
      `wave ${w.name} (${count(w.clusters.length, 'cluster')}${w.approval === 'manual' ? ', manual approval' : ''}): ${w.clusters.join(', ') || 'none'}`
  );
  if (plan.unassigned.length > 0) {
    lines.push(
      `in no wave (held on their stable revision): ${plan.unassigned.join(', ')}`
    );
  }
  if (plan.otherKind.length > 0) {
    lines.push(
      `not rolled (their reconciler does not own ${policy.target.kind}): ${plan.otherKind.join(', ')}`
    );
  }
  if (plan.waves.every((w) => w.clusters.length === 0)) {
    lines.push('note: no registered cluster is in any wave');
  }
  return [...lines, ...invalidRecordLines(listing)];
};
