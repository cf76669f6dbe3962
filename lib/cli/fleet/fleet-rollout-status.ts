/**
 * `dsr fleet status NAME`: one rollout as its sync last left it, wave by
 * wave: each wave's approval and bake, each cluster's phase, node step
 * and why it waits or failed, and the stable and target revision it is
 * pinned to; then the covered clusters no wave names, and the clusters
 * the state still names that the policy no longer covers (deregistered,
 * relabelled).
 */

import { formatDuration } from '../../fleet/duration.js';
import { isStampedForRollout, isUnderWay } from '../../fleet/fleet-controls.js';
import type { FleetWave } from '../../fleet/fleet-policy.js';
import type { ClusterListing, FleetRolloutRecord } from '../../ports/index.js';
import { humanDuration, kubectlColumns } from '../daemon-set-table.js';
import type { Outcome } from '../render-output.js';
import {
  formatTime,
  pendingControl,
  shownPhase,
  wavesOf,
} from './fleet-rollout-view.js';

/** One cluster's row. */
interface ClusterRow {
  id: string;
  phase: string;
  /** `step/steps (partition P)`, once the cluster's wave started it. */
  step?: string;
  reason?: string;
  stable?: string;
  target?: string;
}

/** One wave's approval, bake and clusters. */
interface WaveRow {
  name: string;
  approval: string;
  bake: string;
  clusters: ClusterRow[];
}

/** Returns a cluster's row (`wave`: its wave, if it has one). */
const clusterView = (
  record: FleetRolloutRecord,
  id: string,
  wave: FleetWave | undefined
): ClusterRow => {
  const { state } = record;
  const cr = state.clusters[id];
  const stable = state.stable[id];
  const target = state.target[id];
  const step = cr && wave?.nodeSteps[cr.step];
  const reason =
    cr?.reason ??
    (cr !== undefined
      ? undefined
      : target !== undefined
        ? 'held until its wave starts'
        : stable !== undefined
          ? 'on the stable revision'
          : 'has not reported a revision');
  return {
    id,
    phase: cr?.phase ?? (target === undefined ? '-' : 'Pending'),
    ...(cr && step && wave
      ? {
          step: `${cr.step + 1}/${wave.nodeSteps.length} (partition ${step.partition})`,
        }
      : {}),
    ...(reason === undefined ? {} : { reason }),
    ...(stable === undefined ? {} : { stable }),
    ...(target === undefined ? {} : { target }),
  };
};

/** Returns how the wave's approval stands. */
const approvalOf = (record: FleetRolloutRecord, wave: FleetWave): string => {
  if (!wave.manualApproval) return 'automatic';
  const at = record.controls.approvedAtMs[wave.name];
  if (at !== undefined && isStampedForRollout(at, record.state)) {
    return `approved ${formatTime(at)}`;
  }
  return isUnderWay(record.state) ? 'waits for dsr fleet approve' : 'manual';
};

/** Returns how the wave's bake (after its last cluster) stands. */
const bakeOf = (
  record: FleetRolloutRecord,
  wave: FleetWave,
  nowMs: number
): string => {
  const doneAt = record.state.waveDoneAtMs[wave.name];
  const bake = `bake ${formatDuration(wave.bakeMs)}`;
  if (doneAt === undefined || !isUnderWay(record.state)) return bake;
  const left = doneAt + wave.bakeMs - nowMs;
  return left > 0
    ? `${bake}: baking, ${humanDuration(left)} left`
    : `${bake}: done`;
};

/** Returns the controls as one line. */
const controlsLine = ({ controls, state }: FleetRolloutRecord): string => {
  const parts = [
    ...(controls.paused ? ['paused'] : []),
    ...(isStampedForRollout(controls.abortedAtMs, state)
      ? [`aborted ${formatTime(controls.abortedAtMs ?? 0)}`]
      : []),
  ];
  return parts.join(', ') || 'none';
};

/** Returns the header lines: `Field:  value`, the ones that are set. */
const headerLines = (record: FleetRolloutRecord, nowMs: number): string[] => {
  const { policy, state } = record;
  const at = (ms: number) =>
    `${formatTime(ms)} (${humanDuration(nowMs - ms)} ago)`;
  const fields: [string, string | undefined][] = [
    ['Name', policy.name],
    [
      'Target',
      `${policy.target.kind} ${policy.target.namespace}/${policy.target.name}`,
    ],
    ['Phase', shownPhase(record)],
    ['Halt reason', state.haltReason],
    ['Applied', at(record.appliedAtMs)],
    [
      'Started',
      state.startedAtMs === undefined ? undefined : at(state.startedAtMs),
    ],
    [
      'Superseded',
      state.supersededAtMs === undefined ? undefined : at(state.supersededAtMs),
    ],
    ['Controls', controlsLine(record)],
  ];
  return fields.flatMap(([k, v]) =>
    v === undefined ? [] : [`${`${k}:`.padEnd(13)}${v}`]
  );
};

/** Returns the cluster table, indented under its heading. */
const clusterTable = (clusters: readonly ClusterRow[]): string[] =>
  clusters.length === 0
    ? ['    no clusters']
    : kubectlColumns([
        ['CLUSTER', 'PHASE', 'STEP', 'STABLE', 'TARGET', 'REASON'],
        ...clusters.map((c) => [
          c.id,
          c.phase,
          c.step ?? '-',
          c.stable ?? '-',
          c.target ?? '-',
          c.reason ?? '',
        ]),
      ]).map((line) => `    ${line.trimEnd()}`);

/** Returns the outcome of `status`. */
export const fleetRolloutStatus = (
  record: FleetRolloutRecord,
  listing: ClusterListing,
  nowMs: number
): Outcome => {
  const { policy, state, controls } = record;
  const membership = wavesOf(record, listing);
  const waves: WaveRow[] = membership.waves.map((w, i) => {
    const wave = policy.waves[i] as FleetWave;
    return {
      name: w.name,
      approval: approvalOf(record, wave),
      bake: bakeOf(record, wave, nowMs),
      clusters: w.clusters.map((id) => clusterView(record, id, wave)),
    };
  });
  const unassigned = membership.unassigned.map((id) =>
    clusterView(record, id, undefined)
  );
  const covered = new Set([
    ...membership.waves.flatMap((w) => w.clusters),
    ...membership.unassigned,
  ]);
  const noLongerCovered = [
    ...new Set([...Object.keys(state.stable), ...Object.keys(state.clusters)]),
  ]
    .filter((id) => !covered.has(id))
    .sort()
    .map((id) => clusterView(record, id, undefined));
  const pending = pendingControl(record);
  return {
    exitCode: 0,
    lines: [
      ...headerLines(record, nowMs),
      'Waves:',
      ...waves.flatMap((w) => [
        `  ${w.name}: approval ${w.approval}; ${w.bake}`,
        ...clusterTable(w.clusters),
      ]),
      ...(unassigned.length > 0
        ? [
            'In no wave (held on their stable revision):',
            ...clusterTable(unassigned),
          ]
        : []),
      ...(noLongerCovered.length > 0
        ? [
            'No longer covered (released at the next sync):',
            ...clusterTable(noLongerCovered),
          ]
        : []),
    ],
    json: {
      name: policy.name,
      target: policy.target,
      phase: state.phase,
      ...(pending === undefined ? {} : { pending }),
      ...(state.haltReason === undefined
        ? {}
        : { haltReason: state.haltReason }),
      appliedAt: formatTime(record.appliedAtMs),
      ...(state.startedAtMs === undefined
        ? {}
        : { startedAt: formatTime(state.startedAtMs) }),
      ...(state.supersededAtMs === undefined
        ? {}
        : { supersededAt: formatTime(state.supersededAtMs) }),
      controls: {
        paused: controls.paused,
        ...(controls.abortedAtMs === undefined
          ? {}
          : { abortedAt: formatTime(controls.abortedAtMs) }),
        approvedAt: Object.fromEntries(
          Object.entries(controls.approvedAtMs).map(([w, at]) => [
            w,
            formatTime(at),
          ])
        ),
      },
      waves,
      unassigned,
      noLongerCovered,
    },
  };
};
