/**
 * `kubectl dsr migrate` on the real control plane, with kube-controller-
 * manager's DaemonSet controller on (as on EKS) and the cluster registered
 * for the own kind: an apps/v1 DaemonSet that kube-controller-manager created
 * and converged moves to an AdvancedDaemonSet, and back, without a single
 * pod restart (pod UIDs before and after are equal).
 */

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { ClusterConnector } from '#lib/adapters/kube/kube-cluster-connector.js';
import {
  kubeConfigFromFile,
  serverOfRecord,
} from '#lib/adapters/kube/kube-config-for-cluster.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { checkCluster } from '#lib/cli/clusters/check-cluster.js';
import { reviewOwnershipBeforeAdd } from '#lib/cli/clusters/check-ownership.js';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  type Component,
  stopProcess,
} from '../../../lib/local-cluster/processes.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { FakeLogger } from '../../helpers/fakes/fake-logger.js';
import {
  advancedDaemonSetsPath,
  ensureAdvancedDaemonSetCrd,
} from '../../testbed/advanced-daemonset-crd.js';
import {
  createAgentDaemonSet,
  createDaemonSet,
} from '../../testbed/kube-fixtures.js';
import { startUpstreamDaemonSetController } from '../../testbed/upstream-controller.js';
import { isDaemonSetConverged, livePodsOf } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

const deps: PluginDeps = {
  open: (t) =>
    openAdvancedDaemonSets({
      kubeconfig: t.kubeconfig ?? inject('kubeconfigPath'),
    }),
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  write: () => undefined,
  save: async (name) => `/dev/null/${name}`,
};

const uidsByNode = (pods: readonly Pod[]) =>
  Object.fromEntries(
    pods.map((p) => [p.spec?.nodeName ?? '', p.metadata?.uid ?? ''])
  );

describe('kubectl dsr migrate: apps/v1 ⇄ AdvancedDaemonSet without restarts', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  let upstream: Component | undefined;

  beforeAll(async () => {
    s = new E2eScenario('sls-migrate');
    await ensureAdvancedDaemonSetCrd(s.admin);
    await s.open({ nodes: 5, stack: { ownership: 'apps.dsr.dev/v1beta1' } });
    upstream = await startUpstreamDaemonSetController({
      binDir: inject('binDir'),
      kubeconfigPath: inject('kubeconfigPath'),
      logDir: inject('logDir'),
    });
    await createAgentDaemonSet(s.admin, s.ns, s.selector);
    await eventually(
      'kube-controller-manager converged the apps/v1 DaemonSet',
      () => isDaemonSetConverged(s.admin, s.ns, 'agent', s.nodes),
      60_000
    );
  });

  afterAll(async () => {
    if (upstream) await stopProcess(upstream);
    await s?.close();
  });

  const adsConverged = async (): Promise<boolean> => {
    const ds = await s.admin
      .request<DaemonSet>(
        'get ads',
        'GET',
        `${advancedDaemonSetsPath(s.ns)}/agent`
      )
      .catch(() => undefined);
    const st = ds?.status;
    return (
      st?.desiredNumberScheduled === 5 &&
      st.updatedNumberScheduled === 5 &&
      st.numberAvailable === 5 &&
      st.observedGeneration === ds?.metadata?.generation
    );
  };

  it('--dry-run prints the object it would create and changes nothing', async () => {
    // Act
    const out = await runPlugin(
      ['migrate', 'ds/agent', '-n', s.ns, '--dry-run'],
      deps
    );
    // Assess
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toContain(
      'daemonset.apps/agent → advanceddaemonset.apps.dsr.dev/agent (dry run)'
    );
    expect(out.stdout).toContain('"kind": "AdvancedDaemonSet"');
    expect(await isDaemonSetConverged(s.admin, s.ns, 'agent', s.nodes)).toBe(
      true
    );
  });

  it('moves the apps/v1 DaemonSet to the own kind, restarting 0 pods', async () => {
    // Prepare
    const before = uidsByNode(await livePodsOf(s.admin, s.ns, 'agent'));
    // Act
    const out = await runPlugin(['migrate', 'ds/agent', '-n', s.ns], deps);
    const convergedMs = await eventually(
      'the AdvancedDaemonSet converged',
      adsConverged,
      60_000
    );
    await new Promise((r) => setTimeout(r, 2_000));
    // Assess
    const pods = await livePodsOf(s.admin, s.ns, 'agent');
    console.log(
      `migrated; AdvancedDaemonSet status converged ${convergedMs} ms later`
    );
    expect(out).toMatchObject({ exitCode: 0, stderr: '' });
    expect(out.stdout).toMatch(
      /^saved advanceddaemonset.apps.dsr.dev\/agent to \S+, and daemonset.apps\/agent to \S+\ndaemonset.apps\/agent → advanceddaemonset.apps.dsr.dev\/agent migrated \(pods and revisions adopted by the target\)\n$/
    );
    expect(Object.keys(before)).toHaveLength(5);
    expect(uidsByNode(pods)).toEqual(before);
    for (const pod of pods) {
      expect(pod.metadata?.ownerReferences?.[0]?.kind).toBe(
        'AdvancedDaemonSet'
      );
    }
    expect(s.stack.metrics.creates + s.stack.metrics.deletes).toBe(0);
    expect(s.stack.metrics.conflicts.size).toBe(0);
  });

  it('moves it back to apps/v1, where kube-controller-manager adopts every pod', async () => {
    // Prepare
    const before = uidsByNode(await livePodsOf(s.admin, s.ns, 'agent'));
    // Act
    const out = await runPlugin(['migrate', 'advds/agent', '-n', s.ns], deps);
    await eventually(
      'kube-controller-manager converged it again',
      () => isDaemonSetConverged(s.admin, s.ns, 'agent', s.nodes),
      60_000
    );
    await new Promise((r) => setTimeout(r, 2_000));
    // Assess
    const pods = await livePodsOf(s.admin, s.ns, 'agent');
    expect(out.exitCode).toBe(0);
    expect(uidsByNode(pods)).toEqual(before);
    for (const pod of pods) {
      expect(pod.metadata?.ownerReferences?.[0]?.kind).toBe('DaemonSet');
    }
  });

  it('refuses a source that does not exist', async () => {
    const out = await runPlugin(['migrate', 'ds/none', '-n', s.ns], deps);
    expect(out).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `error: daemonset.apps "none" not found in ${s.ns}\n`,
    });
  });

  it('clusters check and add: an apps/v1 registration beside an active DaemonSet controller fails, naming the own kind', async () => {
    // Prepare: a DaemonSet in kube-system, as managed control planes run them.
    const name = `probe-${s.ns}`.slice(0, 60);
    await createDaemonSet(s.admin, 'kube-system', name, { none: 'x' });
    await eventually('kube-controller-manager wrote its status', async () => {
      const ds = await s.admin.request<DaemonSet>(
        'get probe',
        'GET',
        `/apis/apps/v1/namespaces/kube-system/daemonsets/${name}`
      );
      return ds.status?.observedGeneration === ds.metadata?.generation;
    });
    const connector = new ClusterConnector({
      kubeconfigFiles: kubeConfigFromFile,
      clock: systemClock,
      logger: new FakeLogger(),
    });
    const record = (ownership: ClusterRecord['ownership']): ClusterRecord => ({
      id: 'probe',
      endpoint: '',
      caData: '',
      auth: { type: 'kubeconfig', path: inject('kubeconfigPath') },
      ownership,
      bridgeMode: 'watch',
    });
    const deps = {
      connect: (r: ClusterRecord) => connector.connect(r),
      serverOf: serverOfRecord,
      timeoutMs: 5_000,
    };
    try {
      // Act
      const native = await checkCluster(record('apps/v1'), deps);
      const own = await checkCluster(record('apps.dsr.dev/v1beta1'), deps);
      const addNative = await reviewOwnershipBeforeAdd(
        record('apps/v1'),
        false,
        deps
      );
      // Assess
      expect(addNative.refusal).toContain(
        `not registered: ownership: another DaemonSet controller is active here (kube-controller-manager writes the status of kube-system/${name})`
      );
      expect(native.ok).toBe(false);
      expect(native.problems).toContain(
        `ownership: another DaemonSet controller is active here (kube-controller-manager writes the status of kube-system/${name}); register the cluster with --ownership apps/v1+OnDelete to roll out OnDelete DaemonSets that opt in, or apps.dsr.dev/v1beta1 and use AdvancedDaemonSets, or turn that controller off`
      );
      expect(own.problems.filter((p) => p.startsWith('ownership'))).toEqual([]);
    } finally {
      await s.admin.request(
        'delete probe',
        'DELETE',
        `/apis/apps/v1/namespaces/kube-system/daemonsets/${name}`
      );
    }
  });
});
