/**
 * `clusters check` telling which ownership mode fits: an apps/v1
 * registration where another DaemonSet controller writes DaemonSet status is
 * a problem (it would be fenced at the first fight), with the own kind as the
 * way out; an own-kind registration only notes what it owns.
 */
import { describe, expect, it } from 'vitest';
import { checkCluster } from '#lib/cli/clusters/check-cluster.js';
import { USER_AGENT } from '#lib/policy/identity.js';
import type { ClusterProbe, ClusterRecord } from '#lib/ports/index.js';

const record = (ownership: ClusterRecord['ownership']): ClusterRecord => ({
  id: 'c1',
  endpoint: 'https://c1.example',
  caData: '',
  auth: {
    type: 'secret',
    secretArn: 'arn:aws:secretsmanager:eu-west-1:1:secret:dsr/c1',
  },
  ownership,
  bridgeMode: 'watch',
});

const check = (
  ownership: ClusterRecord['ownership'],
  managers: ClusterProbe['daemonSetStatusManagers']
) => {
  const probe: ClusterProbe = {
    version: async () => 'v1.31.2',
    whoAmI: async () => 'reconciler',
    canI: async () => true,
    daemonSetStatusManagers: managers,
  };
  return checkCluster(record(ownership), {
    connect: async () => ({ probe, close: () => undefined }),
    serverOf: (r) => r.endpoint,
    timeoutMs: 1_000,
  });
};

describe('checkCluster: which ownership mode fits', () => {
  it('fails an apps/v1 registration where another controller writes DaemonSet status, naming the mode to use', async () => {
    // Act
    const result = await check('apps/v1', async () => [
      { daemonSet: 'kube-system/aws-node', managers: [USER_AGENT] },
      {
        daemonSet: 'kube-system/kube-proxy',
        managers: ['kube-controller-manager'],
      },
    ]);
    // Assess
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      'ownership: another DaemonSet controller is active here (kube-controller-manager writes the status of kube-system/kube-proxy); register the cluster with --ownership apps/v1+OnDelete to roll out OnDelete DaemonSets that opt in, or apps.dsr.dev/v1beta1 and use AdvancedDaemonSets, or turn that controller off',
    ]);
  });

  it('passes an apps/v1 registration where only this product writes DaemonSet status', async () => {
    const result = await check('apps/v1', async () => [
      { daemonSet: 'kube-system/agent', managers: [USER_AGENT] },
      { daemonSet: 'default/new', managers: [] },
    ]);
    expect(result.ok).toBe(true);
  });

  it('notes, but does not fail, when it cannot tell', async () => {
    const result = await check('apps/v1', async () => {
      throw new Error('forbidden');
    });
    expect(result.ok).toBe(true);
    expect(result.notes).toContain(
      'could not tell whether another DaemonSet controller is active: forbidden'
    );
  });

  it('only notes what an own-kind registration owns', async () => {
    const result = await check('apps.dsr.dev/v1beta1', async () => {
      throw new Error('not asked');
    });
    expect(result.ok).toBe(true);
    expect(result.notes).toEqual([
      "owns AdvancedDaemonSets (apps.dsr.dev) only; the cluster's own controller keeps apps/v1 DaemonSets",
    ]);
  });

  it('says the OnDelete mode fits where the cluster’s own controller is active', async () => {
    const result = await check('apps/v1+OnDelete', async () => [
      {
        daemonSet: 'kube-system/kube-proxy',
        managers: ['kube-controller-manager'],
      },
    ]);
    expect(result.ok).toBe(true);
    expect(result.notes).toEqual([
      "fits: the cluster's own DaemonSet controller is active (kube-controller-manager); it keeps creating pods and writing status, and the reconciler rolls out only OnDelete DaemonSets annotated apps.dsr.dev/rollout, by deleting old pods",
    ]);
  });

  it('notes that the OnDelete mode needs the cluster’s own controller when none is seen', async () => {
    const result = await check('apps/v1+OnDelete', async () => [
      { daemonSet: 'default/new', managers: [] },
    ]);
    expect(result.ok).toBe(true);
    expect(result.notes).toEqual([
      "no other DaemonSet controller was seen writing DaemonSet status (no DaemonSets yet, or its controller is off); apps/v1+OnDelete needs the cluster's own controller on, as on EKS, GKE and AKS, else use --ownership apps/v1",
    ]);
  });
});
