/**
 * The checker's unavailable-within-budget under surge: the controller
 * deletes a node's old pod once its new pod is available in the view it
 * decided from, and that view lags; a new pod that stopped being available
 * just before the deletion landed still served the node.
 */
import { describe, expect, it } from 'vitest';
import { ClusterView } from '../../campaign/checker/cluster-view.js';
import type { Pod } from '../../campaign/checker/kube-objects.js';
import { UnavailabilityBudgetMonitor } from '../../campaign/checker/unavailability-budget.js';
import {
  agentDaemonSet,
  READY_SINCE,
  RUN,
  readyDaemonPod,
  runNode,
} from './checker-fixtures.js';

const SLACK_MS = 4_000;

/**
 * A surge rollout on one node: its old pod and its new one, both Ready, the
 * new one since `freshReadySince` (default: long before), with
 * `minReadySeconds` (default 0).
 */
const surgeOnOneNode = ({
  freshReadySince,
  minReadySeconds,
}: {
  freshReadySince?: string;
  minReadySeconds?: number;
} = {}) => {
  const view = new ClusterView();
  const ds = agentDaemonSet('ds-1', 'ds', 3, {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' },
  });
  if (minReadySeconds !== undefined) ds.spec.minReadySeconds = minReadySeconds;
  view.daemonSets.set('ds-1', ds);
  view.nodes.set('n-0', runNode('n-0'));
  const old = readyDaemonPod('ds-1-old', 'ds', 'ds-1', { uid: 'old' });
  const fresh = readyDaemonPod('ds-1-new', 'ds', 'ds-1', { uid: 'new' });
  if (freshReadySince !== undefined) {
    fresh.status = {
      ...fresh.status,
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: freshReadySince },
      ],
    };
  }
  view.pods.set(old.metadata.name, old);
  view.pods.set(fresh.metadata.name, fresh);
  const monitor = new UnavailabilityBudgetMonitor(RUN, () => false, SLACK_MS);
  const nowMs = Date.parse(READY_SINCE) + 60_000;
  // Seen eligible and both pods available well before (eligibility before
  // the first view is unknown, and forgiven).
  monitor.observeView(view, nowMs - 10_000);
  /** The new pod fails at `failMs`; the old one is deleted at `deleteMs`. */
  const play = (failMs: number, deleteMs: number) => {
    const failed = {
      ...fresh,
      status: { ...fresh.status, phase: 'Failed' },
    } as Pod;
    const found = monitor.observePodChange(view, fresh, failed, failMs);
    view.pods.set(fresh.metadata.name, failed);
    monitor.observeView(view, failMs);
    found.push(...monitor.observePodChange(view, old, undefined, deleteMs));
    return found;
  };
  return { play, nowMs };
};

describe('UnavailabilityBudgetMonitor with surge', () => {
  it("takes a node as served when its new pod was available within the slack before the old one's deletion (campaign seed 100164: a checker false positive)", () => {
    // Prepare
    const { play, nowMs } = surgeOnOneNode();
    // Act: the new pod fails 25 ms before the old one's deletion lands.
    const found = play(nowMs, nowMs + 25);
    // Assess
    expect(found).toEqual([]);
  });

  it('reports the deletion when the new pod had stopped being available longer than the slack before', () => {
    // Prepare
    const { play, nowMs } = surgeOnOneNode();
    // Act
    const found = play(nowMs, nowMs + SLACK_MS + 1_000);
    // Assess
    expect(found.map((v) => v.invariant)).toEqual([
      'unavailable-within-budget',
    ]);
  });

  it('takes a node as served when its new pod, Ready for under a second with minReadySeconds 0, failed by chaos just before the deletion (campaign seeds 220088, 220449: a checker false positive)', () => {
    // Prepare: Ready since the second the new pod turned Ready in, as the
    // API server truncates the transition time.
    const readyMs = Date.parse(READY_SINCE) + 60_000;
    const { play } = surgeOnOneNode({
      freshReadySince: new Date(readyMs).toISOString(),
    });
    // Act: it fails 87 ms after, and the old pod's deletion lands 9 ms later.
    const found = play(readyMs + 87, readyMs + 96);
    // Assess
    expect(found).toEqual([]);
  });

  it('reports the deletion when the new pod failed before minReadySeconds made it available', () => {
    // Prepare
    const readyMs = Date.parse(READY_SINCE) + 60_000;
    const { play } = surgeOnOneNode({
      freshReadySince: new Date(readyMs).toISOString(),
      minReadySeconds: 5,
    });
    // Act
    const found = play(readyMs + 2_000, readyMs + 2_010);
    // Assess
    expect(found.map((v) => v.invariant)).toEqual([
      'unavailable-within-budget',
    ]);
  });
});
