/**
 * Fight detection: whether another controller is acting on a DaemonSet this
 * reconciler owns. The API server records who wrote what (managedFields,
 * manager = the writer's user agent, with the time of its last write), so a
 * sync can tell from what it already read, at no extra cost:
 * - status counters written by another manager after our own last status
 *   write (a controller writes them; a user or tool patching a condition
 *   owns only `status.conditions`, and keeps them as upstream does);
 * - a pod this DaemonSet controls, created by another manager (its entry owns
 *   `metadata.ownerReferences`) after our own last status write.
 * Writes older than our first status write are history — e.g. pods the
 * upstream controller made before we took over, which we adopt unchanged.
 */

import type { DaemonSet, KubeObject, Pod } from '../reconcile/k8s/types.js';
import { USER_AGENT } from './identity.js';

type ManagedFieldsEntry = NonNullable<
  NonNullable<KubeObject['metadata']>['managedFields']
>[number];

const entries = (o: KubeObject | undefined): ManagedFieldsEntry[] =>
  o?.metadata?.managedFields ?? [];

const timeOf = (e: ManagedFieldsEntry): number =>
  e.time ? Date.parse(String(e.time)) : Number.NaN;

/** The status fields only a DaemonSet controller writes. */
const STATUS_COUNTERS = [
  'f:currentNumberScheduled',
  'f:desiredNumberScheduled',
  'f:numberMisscheduled',
  'f:numberReady',
  'f:updatedNumberScheduled',
  'f:numberAvailable',
  'f:numberUnavailable',
  'f:observedGeneration',
];

const ownsStatusCounters = (e: ManagedFieldsEntry): boolean => {
  const status = (e.fieldsV1 as { 'f:status'?: Record<string, unknown> })?.[
    'f:status'
  ];
  return STATUS_COUNTERS.some((f) => status?.[f] !== undefined);
};

const ownsOwnerReferences = (e: ManagedFieldsEntry): boolean => {
  const fields = e.fieldsV1 as
    | { 'f:metadata'?: Record<string, unknown> }
    | undefined;
  return fields?.['f:metadata']?.['f:ownerReferences'] !== undefined;
};

/**
 * Returns a description of each write by another controller since our last
 * status write (empty: no fight seen). `pods` are the pods the sync read.
 */
export const findForeignWrites = (
  ds: DaemonSet,
  pods: readonly Pod[],
  manager = USER_AGENT
): string[] => {
  const status = entries(ds).filter((e) => e.subresource === 'status');
  const ours = status.find((e) => e.manager === manager);
  if (ours === undefined) return [];
  const since = timeOf(ours);
  const found: string[] = [];
  for (const e of status) {
    // managedFields times have whole seconds: the same second counts.
    if (e.manager !== manager && timeOf(e) >= since && ownsStatusCounters(e)) {
      found.push(`status counters written by ${e.manager} at ${e.time}`);
    }
  }
  const uid = ds.metadata?.uid;
  for (const pod of pods) {
    const controlled = pod.metadata?.ownerReferences?.some(
      (r) => r.controller && r.uid === uid
    );
    if (!controlled) continue;
    const creator = entries(pod).find(
      (e) => e.manager !== manager && !e.subresource && ownsOwnerReferences(e)
    );
    const created = Date.parse(String(pod.metadata?.creationTimestamp ?? ''));
    if (creator !== undefined && created >= since) {
      found.push(`pod ${pod.metadata?.name} created by ${creator.manager}`);
    }
  }
  return found;
};
