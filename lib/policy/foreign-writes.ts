/**
 * Fight detection: whether another controller is acting on a DaemonSet this
 * reconciler owns. The API server records who wrote what (managedFields,
 * manager = the writer's user agent, with the time of its last write), so a
 * sync can tell from what it already read, at no extra cost:
 * - status counters written by another manager after our own last status
 *   write (a controller writes them; a user or tool patching a condition
 *   owns only `status.conditions`, and keeps them as upstream does);
 * - a pod this DaemonSet controls, created by another DaemonSet controller
 *   (its entry owns `metadata.ownerReferences`) after our own last status
 *   write. A pod creator is a rival only when it is a known DaemonSet
 *   controller or writes the status counters too (isRivalController): any
 *   user allowed to create pods can set an ownerReference, and would fence
 *   a cluster otherwise. Other such pods are stray, just pods the sync
 *   handles as upstream does.
 * Writes older than our first status write are history — e.g. pods the
 * upstream controller made before we took over, which we adopt unchanged.
 * In the native OnDelete mode the cluster's controller is the expected
 * writer of status and pods: its last status write is the mark instead of
 * ours, and its writes are no fight; any other controller's still are.
 */

import type { DaemonSet, KubeObject, Pod } from '../reconcile/k8s/types.js';
import { isThisProduct, USER_AGENT } from './identity.js';

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
 * The field managers of the DaemonSet controllers besides this product:
 * kube-controller-manager's (the API server names a manager after its
 * User-Agent up to the first `/`) and OpenKruise's (`cfg.UserAgent =
 * "kruise-manager"` in its main.go).
 */
export const KNOWN_DAEMON_SET_CONTROLLERS: readonly string[] = [
  'kube-controller-manager',
  'kruise-manager',
];

/** The field manager of a cluster's own DaemonSet controller. */
export const CLUSTER_DAEMON_SET_CONTROLLER = 'kube-controller-manager';

/**
 * Returns whether `writer`, a field manager other than ours, is a rival
 * DaemonSet controller: one of `controllers`, another deployment of this
 * product, or a writer of the DaemonSet's status counters.
 */
export const isRivalController = (
  writer: string,
  o: {
    ours: string;
    /** The DaemonSet's expected status writer (default: ours). */
    expected?: string;
    controllers: readonly string[];
    statusWriters: ReadonlySet<string>;
  }
): boolean =>
  writer !== o.ours &&
  writer !== (o.expected ?? o.ours) &&
  (o.controllers.includes(writer) ||
    isThisProduct(writer) ||
    o.statusWriters.has(writer));

/** What another manager wrote since our last status write. */
export interface ForeignWrites {
  /** Writes by rival DaemonSet controllers (a fight). */
  rival: string[];
  /** Controlled pods created by someone else (not a fight). */
  stray: string[];
}

/**
 * Returns a description of each write by another manager since the
 * expected status writer's last status write (ours, unless `expected` names
 * the cluster's controller), rival or stray (both empty: none seen). `pods`
 * are the pods the sync read; `controllers` are the known DaemonSet
 * controllers.
 */
export const classifyForeignWrites = (
  ds: DaemonSet,
  pods: readonly Pod[],
  manager = USER_AGENT,
  controllers = KNOWN_DAEMON_SET_CONTROLLERS,
  expected = manager
): ForeignWrites => {
  const found: ForeignWrites = { rival: [], stray: [] };
  const status = entries(ds).filter((e) => e.subresource === 'status');
  const mark = status.find((e) => e.manager === expected);
  if (mark === undefined) return found;
  const since = timeOf(mark);
  const isExpected = (m: string | undefined) => m === manager || m === expected;
  const statusWriters = new Set<string>();
  for (const e of status) {
    if (e.manager === undefined || !ownsStatusCounters(e)) continue;
    statusWriters.add(e.manager);
    // managedFields times have whole seconds: the same second counts.
    if (!isExpected(e.manager) && timeOf(e) >= since) {
      found.rival.push(`status counters written by ${e.manager} at ${e.time}`);
    }
  }
  const uid = ds.metadata?.uid;
  const rival = { ours: manager, expected, controllers, statusWriters };
  for (const pod of pods) {
    const controlled = pod.metadata?.ownerReferences?.some(
      (r) => r.controller && r.uid === uid
    );
    if (!controlled) continue;
    const creator = entries(pod).find(
      (e) => e.manager !== manager && !e.subresource && ownsOwnerReferences(e)
    );
    if (creator !== undefined && isExpected(creator.manager)) continue;
    const created = Date.parse(String(pod.metadata?.creationTimestamp ?? ''));
    if (creator === undefined || !(created >= since)) continue;
    const by = creator.manager ?? '';
    const seen = `pod ${pod.metadata?.name} created by ${by}`;
    if (isRivalController(by, rival)) found.rival.push(seen);
    else found.stray.push(seen);
  }
  return found;
};

/**
 * Returns a description of each write by a rival DaemonSet controller since
 * our last status write (empty: no fight seen).
 */
export const findForeignWrites = (
  ds: DaemonSet,
  pods: readonly Pod[],
  manager = USER_AGENT,
  controllers = KNOWN_DAEMON_SET_CONTROLLERS
): string[] => classifyForeignWrites(ds, pods, manager, controllers).rival;
