/**
 * `kubectl dsr plan TARGET`: what the next sync of a DaemonSet would do —
 * creates, deletes, surge nodes, the update budget left, status changes,
 * events and requeue — from a dry run of the reconciler's own orchestrator.
 * Writes nothing.
 */
import type { DaemonSetStatus } from '../../reconcile/k8s/types.js';
import { nodeShouldRunDaemonPod } from '../../reconcile/node-should-run.js';
import { COUNTER_KEYS } from '../../reconcile/status.js';
import { findUpdatedPodsOnNode } from '../../reconcile/updated-pods.js';
import type { NextSync } from '../../sync/plan-next-sync.js';
import { type NextSyncView, nextSyncView } from './next-sync-view.js';

/** One pod the next sync deletes, and why. */
export interface PlannedDelete {
  pod: string;
  node: string;
  reason: string;
}

/** `plan`'s answer, as `-o json` prints it. */
export interface PlanReport {
  daemonSet: string;
  kind: string;
  revision: string;
  generation?: number;
  creates: string[];
  /** Of `creates`, nodes that keep an old pod beside the new one. */
  surgeNodes: string[];
  deletes: PlannedDelete[];
  patches: string[];
  budget?: {
    maxUnavailable: number;
    maxSurge: number;
    inUse: number;
    left: number;
  };
  status: { field: string; from: unknown; to: unknown }[];
  events: { type: string; reason: string; message: string }[];
  requeueAfterSeconds?: number;
  /** Whether expectations let the sync act; when not, it writes status only. */
  expectationsMet: boolean;
  /** Whether the reconcilers' expectations and backoff were read. */
  stateRead: boolean;
  error?: string;
}

const STATUS_FIELDS: (keyof DaemonSetStatus)[] = [
  'observedGeneration',
  ...COUNTER_KEYS,
];

/** Returns why the next sync deletes a pod, as the planners decided it. */
const deleteReason = (view: NextSyncView, next: NextSync, pod: string) => {
  const nodeName = view.nodeOfPod.get(pod) ?? '';
  const node = next.nodes.find((n) => n.metadata?.name === nodeName);
  const found = next.pods.find((p) => p.metadata?.name === pod);
  if (node === undefined) return 'its node does not exist';
  if (found?.status?.phase === 'Failed') return 'the pod failed';
  const fit = nodeShouldRunDaemonPod(node, view.ds);
  if (!fit.shouldContinueRunning && fit.rejection !== undefined) {
    return fit.rejection.reason;
  }
  const onNode = view.byNode.get(nodeName) ?? [];
  const { oldPod, ok } = findUpdatedPodsOnNode(view.ds, onNode, view.hash);
  if (!ok) return 'more than one daemon pod on the node';
  if (oldPod?.metadata?.name === pod) return 'rolling update (old revision)';
  return 'surplus daemon pod on the node';
};

/** Returns the plan report of a dry-run sync of an existing DaemonSet. */
export const planReport = (
  next: NextSync & { daemonSet: NonNullable<NextSync['daemonSet']> },
  nowMs: number
): PlanReport => {
  const view = nextSyncView(next, nowMs);
  const ds = next.daemonSet;
  const written = [...next.writes]
    .reverse()
    .find((w) => w.verb === 'update-status');
  const status =
    written?.verb === 'update-status'
      ? STATUS_FIELDS.filter(
          (f) => (ds.status?.[f] ?? 0) !== (written.status[f] ?? 0)
        ).map((f) => ({
          field: f,
          from: ds.status?.[f] ?? 0,
          to: written.status[f] ?? 0,
        }))
      : [];
  const b = view.budget;
  const max =
    b === undefined ? 0 : b.maxSurge > 0 ? b.maxSurge : b.maxUnavailable;
  return {
    daemonSet: `${ds.metadata?.namespace}/${ds.metadata?.name}`,
    kind: ds.apiVersion ?? 'apps/v1',
    revision: view.hash,
    ...(ds.metadata?.generation === undefined
      ? {}
      : { generation: ds.metadata.generation }),
    creates: view.creates,
    surgeNodes: view.creates.filter((n) =>
      (view.byNode.get(n) ?? []).some((p) => !p.metadata?.deletionTimestamp)
    ),
    deletes: view.deletes.map((pod) => ({
      pod,
      node: view.nodeOfPod.get(pod) ?? '',
      reason: deleteReason(view, next, pod),
    })),
    patches: view.patches,
    ...(b === undefined
      ? {}
      : {
          budget: {
            maxUnavailable: b.maxUnavailable,
            maxSurge: b.maxSurge,
            inUse: b.inUse,
            left: Math.max(max - b.inUse, 0),
          },
        }),
    status,
    events: next.writes.flatMap((w) =>
      w.verb === 'event'
        ? [{ type: w.type, reason: w.reason, message: w.message }]
        : []
    ),
    ...(next.requeueAfterMs === undefined
      ? {}
      : { requeueAfterSeconds: Math.ceil(next.requeueAfterMs / 1000) }),
    expectationsMet: next.expectationsMet,
    stateRead: next.stateRead,
    ...(next.error === undefined ? {} : { error: next.error }),
  };
};

const list = (names: readonly string[], max = 10): string =>
  names.length <= max
    ? names.join(', ')
    : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;

/** Returns the lines `plan` prints for a report. */
export const formatPlan = (r: PlanReport): string[] => {
  const lines = [
    `DaemonSet ${r.daemonSet} (${r.kind}), revision ${r.revision || '-'}${r.generation === undefined ? '' : `, generation ${r.generation}`}`,
  ];
  if (r.error !== undefined)
    lines.push(`  error    the sync would fail: ${r.error}`);
  if (!r.expectationsMet) {
    lines.push(
      '  waits    for earlier creates/deletes to be observed: status only'
    );
  }
  if (r.creates.length > 0) {
    lines.push(`  create   ${r.creates.length} pod(s) on ${list(r.creates)}`);
  }
  if (r.surgeNodes.length > 0) {
    lines.push(`  surge    ${list(r.surgeNodes)} (new pod beside the old one)`);
  }
  for (const d of r.deletes) {
    lines.push(`  delete   ${d.pod} on ${d.node || '?'}: ${d.reason}`);
  }
  if (r.patches.length > 0) lines.push(`  patch    ${list(r.patches)}`);
  if (r.budget !== undefined) {
    const b = r.budget;
    lines.push(
      b.maxSurge > 0
        ? `  budget   maxSurge ${b.maxSurge}: ${b.inUse} surging, ${b.left} left`
        : `  budget   maxUnavailable ${b.maxUnavailable}: ${b.inUse} unavailable, ${b.left} left`
    );
  }
  for (const s of r.status) {
    lines.push(`  status   ${s.field} ${String(s.from)} → ${String(s.to)}`);
  }
  for (const e of r.events) {
    lines.push(`  event    ${e.type} ${e.reason}: ${e.message}`);
  }
  if (r.requeueAfterSeconds !== undefined) {
    lines.push(`  requeue  in ${r.requeueAfterSeconds}s`);
  }
  const acts = r.creates.length + r.deletes.length + r.patches.length;
  if (acts === 0 && r.status.length === 0 && r.error === undefined) {
    lines.push('  nothing to do: the DaemonSet matches its spec');
  }
  if (!r.stateRead) {
    lines.push(
      "note: the reconcilers' expectations and failed-pod backoff were not read; taken as met and none"
    );
  }
  return lines;
};
