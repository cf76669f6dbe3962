/**
 * Ports `NodeShouldRunDaemonPod`, `predicates` and `NewPod`
 * (pkg/controller/daemon/daemon_controller.go).
 *
 * Assumptions / Invariants:
 * - Only the template's nodeName, nodeSelector, required node affinity and
 *   NoSchedule/NoExecute taints decide. Resources, host ports, preferred
 *   and pod (anti-)affinity, the Ready condition and `spec.unschedulable`
 *   never do: kube-scheduler and the kubelet judge those.
 * - The simulated pod carries the daemon tolerations, so not-ready and
 *   unreachable NoExecute, the pressure taints and unschedulable are always
 *   tolerated; network-unavailable only with hostNetwork.
 * - An untolerated NoSchedule taint keeps a running pod; an untolerated
 *   NoExecute taint evicts it. PreferNoSchedule is ignored.
 */
import { nameOf } from './k8s/meta.js';
import { requiredNodeAffinityMatcher } from './k8s/node-affinity.js';
import {
  addOrUpdateDaemonPodTolerations,
  findMatchingUntoleratedTaint,
  TaintEffect,
} from './k8s/tolerations.js';
import type { DaemonSet, Node, Pod, PodSpec, Taint } from './k8s/types.js';

/** Whether a node should get a daemon pod, and keep one it already has. */
export interface NodeShouldRun {
  /** A daemon pod should be created on the node when it has none. */
  shouldRun: boolean;
  /** A daemon pod already on the node should be kept. */
  shouldContinueRunning: boolean;
  /** Which predicate said no, and why (absent when the node fits). */
  rejection?: NodeRejection;
}

/** The predicate that keeps a daemon pod off a node, and its detail. */
export interface NodeRejection {
  predicate: 'nodeName' | 'nodeAffinity' | 'taint';
  /** e.g. `untolerated taint dedicated=gpu:NoSchedule`. */
  reason: string;
}

/** Returns a taint as kubectl writes it: `key=value:Effect`. */
export const formatTaint = (t: Taint): string =>
  `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

/** Returns `newPod(ds, nodeName).spec`. */
const daemonPodSpec = (ds: DaemonSet, nodeName?: string): PodSpec => {
  const spec = ds.spec?.template.spec ?? { containers: [] };
  return addOrUpdateDaemonPodTolerations(
    nodeName === undefined ? spec : { ...spec, nodeName }
  );
};

/**
 * Returns the pod the DaemonSet would run (`NewPod`): the template's
 * metadata and spec in the DaemonSet's namespace, with the daemon
 * tolerations added and, when `nodeName` is given, `spec.nodeName` set to it
 * (upstream always passes the node being judged). Nested template objects
 * are shared, never mutated.
 */
export function newPod(ds: DaemonSet, nodeName?: string): Pod {
  return {
    metadata: {
      ...ds.spec?.template.metadata,
      namespace: ds.metadata?.namespace,
    },
    spec: daemonPodSpec(ds, nodeName),
  };
}

const isNoScheduleOrNoExecute = (t: Taint): boolean =>
  t.effect === TaintEffect.NoSchedule || t.effect === TaintEffect.NoExecute;

const isNoExecute = (t: Taint): boolean => t.effect === TaintEffect.NoExecute;

const FITS: NodeShouldRun = Object.freeze({
  shouldRun: true,
  shouldContinueRunning: true,
});

/** Judges one node for one DaemonSet (`NodeShouldRunDaemonPod`). */
export type NodePlacement = (node: Node) => NodeShouldRun;

/**
 * Returns the DaemonSet's placement judge, with what does not depend on the
 * node — the daemon pod's spec and tolerations, the parsed nodeSelector and
 * required affinity — built once: template nodeName or node affinity
 * mismatch ⇒ neither; an untolerated NoSchedule/NoExecute taint ⇒ no new
 * pod, and an existing one is kept unless some NoExecute taint is
 * untolerated. `NewPod`'s `spec.nodeName` is left out: neither affinity nor
 * taints read it, and `predicates`' fitsNodeName always holds for it.
 *
 * @example
 * const fits = daemonPlacement(ds);
 * const wanted = nodes.filter((n) => fits(n).shouldRun);
 */
export function daemonPlacement(ds: DaemonSet): NodePlacement {
  const spec = daemonPodSpec(ds);
  const templateNodeName = ds.spec?.template.spec?.nodeName ?? '';
  const mismatchOf = requiredNodeAffinityMatcher(spec);
  return (node) => {
    const nodeName = nameOf(node);
    if (templateNodeName !== '' && templateNodeName !== nodeName) {
      return {
        shouldRun: false,
        shouldContinueRunning: false,
        rejection: {
          predicate: 'nodeName',
          reason: `template nodeName is ${templateNodeName}`,
        },
      };
    }
    const mismatch = mismatchOf(node);
    if (mismatch !== undefined) {
      return {
        shouldRun: false,
        shouldContinueRunning: false,
        rejection: { predicate: 'nodeAffinity', reason: mismatch },
      };
    }
    const taints = node.spec?.taints;
    const blocking = findMatchingUntoleratedTaint(
      taints,
      spec.tolerations,
      isNoScheduleOrNoExecute
    );
    if (blocking === undefined) return FITS;
    const evicting = findMatchingUntoleratedTaint(
      taints,
      spec.tolerations,
      isNoExecute
    );
    return {
      shouldRun: false,
      shouldContinueRunning: evicting === undefined,
      rejection: {
        predicate: 'taint',
        reason: `untolerated taint ${formatTaint(evicting ?? blocking)}`,
      },
    };
  };
}

/**
 * Returns `daemonPlacement(ds)` judging each node once: the three phases of
 * one sync (manage, rolling update, status) ask about the same nodes and
 * DaemonSet, as upstream's three calls do, and get the same answers. Keep it
 * to one sync: a node object is never changed, but a newer one replaces it.
 */
export function placementOnce(ds: DaemonSet): NodePlacement {
  const judge = daemonPlacement(ds);
  const judged = new Map<Node, NodeShouldRun>();
  return (node) => {
    let fit = judged.get(node);
    if (fit === undefined) {
      fit = judge(node);
      judged.set(node, fit);
    }
    return fit;
  };
}

/**
 * Returns whether the DaemonSet should run a pod on the node, and whether a
 * pod already there should keep running (`NodeShouldRunDaemonPod`; see
 * `daemonPlacement`, which judges many nodes for one DaemonSet).
 *
 * @example
 * const { shouldRun, shouldContinueRunning } =
 *   nodeShouldRunDaemonPod(node, ds);
 */
export const nodeShouldRunDaemonPod = (
  node: Node,
  ds: DaemonSet
): NodeShouldRun => daemonPlacement(ds)(node);
