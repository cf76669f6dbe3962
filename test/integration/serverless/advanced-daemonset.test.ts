/**
 * The own kind as managed clusters will run it: the cluster is registered
 * with ownership apps.dsr.dev/v1beta1, reached under the own kind's
 * least-privilege role (infra/kubernetes/rbac-advanced-daemonset.yaml), on
 * the serverless wiring (bridge → SQS → reconcile handler, DynamoDB Local,
 * fauxqs) — with kube-controller-manager's own DaemonSet controller switched
 * on, as on EKS. The AdvancedDaemonSet converges, stops at a partition,
 * pauses and follows a canary selector; a native DaemonSet beside it is
 * converged by kube-controller-manager alone; nobody fences, and neither
 * controller writes the other's objects.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { USER_AGENT } from '#lib/policy/identity.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  type Component,
  stopProcess,
} from '../../../lib/local-cluster/processes.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import {
  advancedDaemonSetsPath,
  ensureAdvancedDaemonSetCrd,
} from '../../testbed/advanced-daemonset-crd.js';
import {
  createAgentDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../../testbed/kube-fixtures.js';
import { startUpstreamDaemonSetController } from '../../testbed/upstream-controller.js';
import {
  isDaemonSetConverged,
  isPodAvailable as isReady,
  livePodsOf,
} from './cluster-state.js';
import { labelNode } from './daemon-set-fixtures.js';
import { E2eScenario } from './e2e-scenario.js';
import { RolloutSampler } from './rollout-sampler.js';
import { eventually } from './stack.js';

const NAME = 'ads';
/** The main AdvancedDaemonSet's maxUnavailable (of 4 nodes). */
const BUDGET = 2;

/** Samples the pods of one AdvancedDaemonSet (several share the namespace). */
const sample = (s: E2eScenario, name: string) =>
  RolloutSampler.start(s.admin, s.ns, s.nodes, {
    labelSelector: `app=${name}`,
  });

/** Returns the AdvancedDaemonSet. */
const getAds = (admin: KubeHttp, ns: string) =>
  admin.request<DaemonSet>(
    'get ads',
    'GET',
    `${advancedDaemonSetsPath(ns)}/${NAME}`
  );

/** Merge-patches the AdvancedDaemonSet's spec. */
const patchAds = (admin: KubeHttp, ns: string, spec: object) =>
  admin.request('patch ads', 'PATCH', `${advancedDaemonSetsPath(ns)}/${NAME}`, {
    body: JSON.stringify({ spec }),
    contentType: 'application/merge-patch+json',
  });

/** Sets the image of the template's one container. */
const setImage = (
  admin: KubeHttp,
  ns: string,
  selector: object,
  image: string
) =>
  patchAds(admin, ns, {
    template: {
      metadata: { labels: { app: NAME, ...selector } },
      spec: { containers: [{ name: 'c', image }] },
    },
  });

const imagesOf = (pods: readonly Pod[]): string[] =>
  pods.map((p) => p.spec?.containers[0]?.image ?? '').sort();

/** Returns whether the AdvancedDaemonSet runs `image` everywhere, status current. */
const adsConverged = async (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[],
  image: string
): Promise<boolean> => {
  const ds = await getAds(admin, ns);
  const pods = await livePodsOf(admin, ns, NAME);
  const s = ds.status;
  const n = nodes.length;
  return (
    s?.desiredNumberScheduled === n &&
    s.numberAvailable === n &&
    s.updatedNumberScheduled === n &&
    s.observedGeneration === ds.metadata?.generation &&
    s.updateRevision !== undefined &&
    pods.length === n &&
    nodes.every(
      (node) =>
        pods.filter((p) => p.spec?.nodeName === node).length === 1 &&
        pods.find((p) => p.spec?.nodeName === node)?.spec?.containers[0]
          ?.image === image
    )
  );
};

/**
 * Creates AdvancedDaemonSet `name` (selector app=name; `labels` added to the
 * template's) with extra spec fields.
 */
const createAds = (
  s: E2eScenario,
  name: string,
  spec: object,
  labels: Record<string, string> = {}
) =>
  s.admin.request(`create ${name}`, 'POST', advancedDaemonSetsPath(s.ns), {
    body: JSON.stringify({
      apiVersion: 'apps.dsr.dev/v1beta1',
      kind: 'AdvancedDaemonSet',
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name, ...labels } },
          spec: {
            nodeSelector: s.selector,
            containers: [{ name: 'c', image: 'agent:1' }],
          },
        },
        ...spec,
      },
    }),
  });

/** Returns the field managers that wrote an object. */
const managersOf = (obj: { metadata?: DaemonSet['metadata'] }): string[] =>
  (obj.metadata?.managedFields ?? []).map((f) => f.manager ?? '');

describe('serverless runtime: the own kind beside kube-controller-manager’s DaemonSet controller', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  let upstream: Component | undefined;
  const nativeNs = `native-${Date.now().toString(36)}`;

  beforeAll(async () => {
    s = new E2eScenario('sls-ads');
    await ensureAdvancedDaemonSetCrd(s.admin);
    await s.open({
      nodes: 4,
      stack: { ownership: 'apps.dsr.dev/v1beta1' },
    });
    // As on EKS: the cluster's own DaemonSet controller runs.
    upstream = await startUpstreamDaemonSetController({
      binDir: inject('binDir'),
      kubeconfigPath: inject('kubeconfigPath'),
      logDir: inject('logDir'),
    });
    await createNamespace(s.admin, nativeNs);
    await s.admin.request('create ads', 'POST', advancedDaemonSetsPath(s.ns), {
      body: JSON.stringify({
        apiVersion: 'apps.dsr.dev/v1beta1',
        kind: 'AdvancedDaemonSet',
        metadata: { name: NAME },
        spec: {
          selector: { matchLabels: { app: NAME } },
          template: {
            metadata: { labels: { app: NAME } },
            spec: {
              nodeSelector: s.selector,
              containers: [{ name: 'c', image: 'agent:1' }],
            },
          },
          updateStrategy: { rollingUpdate: { maxUnavailable: BUDGET } },
        },
      }),
    });
    await createAgentDaemonSet(s.admin, nativeNs, s.selector);
  });

  afterAll(async () => {
    if (upstream) await stopProcess(upstream);
    await deleteNamespace(s.admin, nativeNs).catch(() => undefined);
    await s?.close();
  });

  it('converges the AdvancedDaemonSet, while kube-controller-manager alone converges the native one', async () => {
    // Act
    const adsMs = await eventually(
      'the AdvancedDaemonSet converged',
      () => adsConverged(s.admin, s.ns, s.nodes, 'agent:1'),
      60_000
    );
    await eventually(
      'the native DaemonSet converged by kube-controller-manager',
      () => isDaemonSetConverged(s.admin, nativeNs, 'agent', s.nodes),
      60_000
    );
    // Assess
    console.log(`AdvancedDaemonSet converged in ${adsMs} ms beside KCM`);
    const adsPods = await livePodsOf(s.admin, s.ns, NAME);
    for (const pod of adsPods) {
      expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({
        apiVersion: 'apps.dsr.dev/v1beta1',
        kind: 'AdvancedDaemonSet',
        controller: true,
      });
      expect(managersOf(pod)).toContain(USER_AGENT);
      expect(managersOf(pod)).not.toContain('kube-controller-manager');
    }
    const nativePods = await livePodsOf(s.admin, nativeNs, 'agent');
    const native = await s.admin.request<DaemonSet>(
      'get native',
      'GET',
      `/apis/apps/v1/namespaces/${nativeNs}/daemonsets/agent`
    );
    // The test's own client creates the native DaemonSet with our
    // User-Agent, so its pods and its status are what tell who acted.
    for (const pod of nativePods) {
      expect(managersOf(pod)).toContain('kube-controller-manager');
      expect(managersOf(pod)).not.toContain(USER_AGENT);
    }
    const statusManagers = (native.metadata?.managedFields ?? [])
      .filter((f) => f.subresource === 'status')
      .map((f) => f.manager);
    expect(statusManagers).toEqual(['kube-controller-manager']);
    expect(s.stack.metrics.conflicts.size).toBe(0);
  });

  it('stops at a partition, then finishes when the partition drops to 0', async () => {
    // Prepare
    await eventually('converged', () =>
      adsConverged(s.admin, s.ns, s.nodes, 'agent:1')
    );
    await patchAds(s.admin, s.ns, {
      updateStrategy: { rollingUpdate: { partition: 2 } },
    });
    const sampler = sample(s, NAME);
    // Act
    await setImage(s.admin, s.ns, {}, 'agent:2');
    await eventually(
      'two nodes updated',
      async () =>
        imagesOf(await livePodsOf(s.admin, s.ns, NAME)).join() ===
        'agent:1,agent:1,agent:2,agent:2'
    );
    // Several syncs' worth of time: the partition must hold.
    await new Promise((r) => setTimeout(r, 3_000));
    const held = imagesOf(await livePodsOf(s.admin, s.ns, NAME));
    await patchAds(s.admin, s.ns, {
      updateStrategy: { rollingUpdate: { partition: 0 } },
    });
    await eventually('all updated', () =>
      adsConverged(s.admin, s.ns, s.nodes, 'agent:2')
    );
    const worst = await sampler.stop();
    // Assess: the two smallest names kept the old image.
    expect(held).toEqual(['agent:1', 'agent:1', 'agent:2', 'agent:2']);
    const pods = await livePodsOf(s.admin, s.ns, NAME);
    expect(pods).toHaveLength(4);
    expect(worst.maxPodsOnNode).toBe(1);
    expect(worst.maxUnavailableNodes).toBeLessThanOrEqual(BUDGET);
    expect(s.stack.metrics.conflicts.size).toBe(0);
  });

  it('pauses: no pod changes while paused, the rollout resumes after', async () => {
    // Prepare
    await patchAds(s.admin, s.ns, {
      updateStrategy: { rollingUpdate: { paused: true } },
    });
    const before = (await livePodsOf(s.admin, s.ns, NAME))
      .map((p) => p.metadata?.uid)
      .sort();
    const sampler = sample(s, NAME);
    // Act
    await setImage(s.admin, s.ns, {}, 'agent:3');
    await new Promise((r) => setTimeout(r, 3_000));
    const during = (await livePodsOf(s.admin, s.ns, NAME))
      .map((p) => p.metadata?.uid)
      .sort();
    await patchAds(s.admin, s.ns, {
      updateStrategy: { rollingUpdate: { paused: false } },
    });
    await eventually('resumed rollout', () =>
      adsConverged(s.admin, s.ns, s.nodes, 'agent:3')
    );
    const worst = await sampler.stop();
    // Assess
    expect(during).toEqual(before);
    expect(worst.maxPodsOnNode).toBe(1);
    expect(worst.maxUnavailableNodes).toBeLessThanOrEqual(BUDGET);
    expect((await getAds(s.admin, s.ns)).status?.updatedNumberScheduled).toBe(
      4
    );
  });

  it('updates only the nodes its canary selector picks, and a node that gains the label', async () => {
    // Prepare
    const [first, second] = [...s.nodes].sort();
    await patchAds(s.admin, s.ns, {
      updateStrategy: {
        rollingUpdate: { selector: { matchLabels: { canary: 'true' } } },
      },
    });
    await labelNode(s.admin, first ?? '', { canary: 'true' });
    const sampler = sample(s, NAME);
    // Act
    await setImage(s.admin, s.ns, {}, 'agent:4');
    await eventually('the canary node updated', async () => {
      const pods = await livePodsOf(s.admin, s.ns, NAME);
      return (
        pods.find((p) => p.spec?.nodeName === first)?.spec?.containers[0]
          ?.image === 'agent:4'
      );
    });
    await new Promise((r) => setTimeout(r, 2_000));
    const afterCanary = imagesOf(await livePodsOf(s.admin, s.ns, NAME));
    await labelNode(s.admin, second ?? '', { canary: 'true' });
    await eventually('the second canary node updated', async () => {
      const pods = await livePodsOf(s.admin, s.ns, NAME);
      return (
        pods.find((p) => p.spec?.nodeName === second)?.spec?.containers[0]
          ?.image === 'agent:4'
      );
    });
    const afterSecond = imagesOf(await livePodsOf(s.admin, s.ns, NAME));
    const worst = await sampler.stop();
    // Assess
    expect(worst.maxPodsOnNode).toBe(1);
    // One canary node at a time: never more than one down.
    expect(worst.maxUnavailableNodes).toBeLessThanOrEqual(1);
    expect(afterCanary).toEqual(['agent:3', 'agent:3', 'agent:3', 'agent:4']);
    expect(afterSecond).toEqual(['agent:3', 'agent:3', 'agent:4', 'agent:4']);
    expect(s.stack.metrics.conflicts.size).toBe(0);
  });

  it('gates creation with partitionedScaling: only desired − partition nodes get a pod, in node-name order', async () => {
    // Prepare: the partition scales against the previous status, so the
    // object starts at partition 4 (no pod) and the test lowers it.
    await createAds(s, 'scaled', {
      updateStrategy: { rollingUpdate: { partition: 4 } },
      scaleStrategy: { partitionedScaling: true },
    });
    const path = `${advancedDaemonSetsPath(s.ns)}/scaled`;
    await eventually('scaled observed', async () => {
      const ds = await s.admin.request<DaemonSet>('get scaled', 'GET', path);
      return ds.status?.observedGeneration === ds.metadata?.generation;
    });
    const sampler = sample(s, 'scaled');
    const nodesWithPods = async () =>
      (await livePodsOf(s.admin, s.ns, 'scaled'))
        .map((p) => p.spec?.nodeName ?? '')
        .sort();
    const setPartition = (partition: number) =>
      s.admin.request('patch scaled', 'PATCH', path, {
        body: JSON.stringify({
          spec: { updateStrategy: { rollingUpdate: { partition } } },
        }),
        contentType: 'application/merge-patch+json',
      });
    const atFour = await nodesWithPods();
    // Act
    await setPartition(3);
    await eventually(
      'one pod',
      async () => (await nodesWithPods()).length === 1
    );
    await new Promise((r) => setTimeout(r, 2_000));
    const atThree = await nodesWithPods();
    await setPartition(1);
    await eventually(
      'three pods',
      async () => (await nodesWithPods()).length === 3
    );
    await new Promise((r) => setTimeout(r, 2_000));
    const atOne = await nodesWithPods();
    await setPartition(0);
    await eventually('all pods', async () => {
      const ds = await s.admin.request<DaemonSet>('get scaled', 'GET', path);
      return ds.status?.numberAvailable === s.nodes.length;
    });
    const worst = await sampler.stop();
    // Assess
    const sorted = [...s.nodes].sort();
    expect(atFour).toEqual([]);
    expect(atThree).toEqual(sorted.slice(0, 1));
    expect(atOne).toEqual(sorted.slice(0, 3));
    expect(await nodesWithPods()).toEqual(sorted);
    expect(worst.maxPodsOnNode).toBe(1);
    expect(s.stack.metrics.conflicts.size).toBe(0);
  });

  it('refuses a spec the CRD let through: InvalidSpec condition, a Warning event, no pod; fixed, it converges', async () => {
    // Prepare: a canary selector `In` without values passes the schema.
    await createAds(s, 'invalid', {
      updateStrategy: {
        rollingUpdate: {
          selector: { matchExpressions: [{ key: 'zone', operator: 'In' }] },
        },
      },
    });
    const path = `${advancedDaemonSetsPath(s.ns)}/invalid`;
    const get = () => s.admin.request<DaemonSet>('get invalid', 'GET', path);
    const invalidCondition = (ds: DaemonSet) =>
      ds.status?.conditions?.find((c) => c.type === 'InvalidSpec') as
        | { status: string; message?: string; observedGeneration?: number }
        | undefined;
    // Act
    await eventually('InvalidSpec reported', async () => {
      const ds = await get();
      return (
        invalidCondition(ds)?.observedGeneration === ds.metadata?.generation
      );
    });
    await new Promise((r) => setTimeout(r, 2_000));
    const refused = await get();
    const podsWhileInvalid = await livePodsOf(s.admin, s.ns, 'invalid');
    const events = await s.admin.list<{
      reason?: string;
      type?: string;
      message?: string;
    }>('list events', `/api/v1/namespaces/${s.ns}/events`, {
      fieldSelector: 'involvedObject.name=invalid',
    });
    await s.admin.request('fix invalid', 'PATCH', path, {
      body: JSON.stringify({
        spec: {
          updateStrategy: {
            rollingUpdate: {
              selector: {
                matchExpressions: [
                  { key: 'zone', operator: 'In', values: ['a'] },
                ],
              },
            },
          },
        },
      }),
      contentType: 'application/merge-patch+json',
    });
    await eventually('converged once fixed', async () => {
      const ds = await get();
      return (
        ds.status?.numberAvailable === s.nodes.length &&
        ds.status.observedGeneration === ds.metadata?.generation
      );
    });
    // Assess
    expect(invalidCondition(refused)).toMatchObject({
      status: 'True',
      message: expect.stringContaining(
        "spec.updateStrategy.rollingUpdate.selector: Invalid value: label requirement on \"zone\": for 'in', 'notin' operators, values set can't be empty"
      ),
    });
    expect(podsWhileInvalid).toEqual([]);
    expect(events.filter((e) => e.reason === 'InvalidSpec')).toEqual([
      expect.objectContaining({ type: 'Warning' }),
    ]);
    expect(invalidCondition(await get())).toBeUndefined();
  });

  it('runs a preDelete hook: one pod taken out of service and held PreparingDelete, replaced once the hook lets go', async () => {
    // Prepare
    const hook = { 'example.com/drain': 'hold' };
    await createAds(
      s,
      'hooked',
      {
        lifecycle: {
          preDelete: { labelsHandler: hook, markPodNotReady: true },
        },
      },
      hook
    );
    const path = `${advancedDaemonSetsPath(s.ns)}/hooked`;
    await eventually('hooked converged', async () => {
      const pods = await livePodsOf(s.admin, s.ns, 'hooked');
      return pods.length === s.nodes.length && pods.every(isReady);
    });
    const sampler = sample(s, 'hooked');
    // Act
    await s.admin.request('patch hooked', 'PATCH', path, {
      body: JSON.stringify({
        spec: {
          template: {
            spec: { containers: [{ name: 'c', image: 'agent:2' }] },
          },
        },
      }),
      contentType: 'application/merge-patch+json',
    });
    const preparing = async () =>
      (await livePodsOf(s.admin, s.ns, 'hooked')).filter(
        (p) =>
          p.metadata?.labels?.['lifecycle.apps.kruise.io/state'] ===
          'PreparingDelete'
      );
    await eventually(
      'one pod PreparingDelete',
      async () => (await preparing()).length === 1
    );
    await new Promise((r) => setTimeout(r, 2_000));
    const heldPods = await preparing();
    const images = imagesOf(await livePodsOf(s.admin, s.ns, 'hooked'));
    const [held] = heldPods;
    await s.admin.request(
      'release hook',
      'PATCH',
      `/api/v1/namespaces/${s.ns}/pods/${held?.metadata?.name}`,
      {
        body: JSON.stringify({
          metadata: { labels: { 'example.com/drain': null } },
        }),
        contentType: 'application/merge-patch+json',
      }
    );
    await eventually('the held pod replaced', async () => {
      const pods = await livePodsOf(s.admin, s.ns, 'hooked');
      return (
        !pods.some((p) => p.metadata?.uid === held?.metadata?.uid) &&
        pods.some((p) => p.spec?.containers[0]?.image === 'agent:2')
      );
    });
    const worst = await sampler.stop();
    // Assess: while held, nothing was deleted and no other pod was marked.
    expect(heldPods).toHaveLength(1);
    expect(images).toEqual(Array(s.nodes.length).fill('agent:1'));
    // markPodNotReady: out of service through the KruisePodReady gate.
    expect(held?.spec?.readinessGates).toEqual([
      { conditionType: 'KruisePodReady' },
    ]);
    const conditionOf = (type: string) =>
      held?.status?.conditions?.find((c) => c.type === type);
    expect(conditionOf('KruisePodReady')).toMatchObject({
      status: 'False',
      message: '[{"userAgent":"Lifecycle","key":"preDeleteHook"}]',
    });
    expect(conditionOf('Ready')?.status).toBe('False');
    // The held pod is the one unavailable pod maxUnavailable 1 allows.
    expect(worst.maxUnavailableNodes).toBe(1);
    expect(worst.maxPodsOnNode).toBe(1);
    expect(s.stack.metrics.conflicts.size).toBe(0);
  });

  it('updates an image in place (InPlaceIfPossible): same pods, new image, no restart', async () => {
    // Prepare
    await createAds(s, 'inplace', {
      updateStrategy: {
        rollingUpdate: {
          rollingUpdateType: 'InPlaceIfPossible',
          maxUnavailable: 2,
        },
      },
    });
    const path = `${advancedDaemonSetsPath(s.ns)}/inplace`;
    const converged = async (image: string) => {
      const ds = await s.admin.request<DaemonSet>('get inplace', 'GET', path);
      const pods = await livePodsOf(s.admin, s.ns, 'inplace');
      const st = ds.status;
      return (
        st?.desiredNumberScheduled === s.nodes.length &&
        st.updatedNumberScheduled === s.nodes.length &&
        st.numberAvailable === s.nodes.length &&
        st.observedGeneration === ds.metadata?.generation &&
        pods.length === s.nodes.length &&
        pods.every((p) => p.spec?.containers[0]?.image === image)
      );
    };
    await eventually('inplace converged', () => converged('agent:1'), 60_000);
    const before = (await livePodsOf(s.admin, s.ns, 'inplace'))
      .map((p) => p.metadata?.uid)
      .sort();
    const sampler = sample(s, 'inplace');
    // Act
    await s.admin.request('patch inplace', 'PATCH', path, {
      body: JSON.stringify({
        spec: {
          template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } },
        },
      }),
      contentType: 'application/merge-patch+json',
    });
    const ms = await eventually(
      'updated in place',
      () => converged('agent:2'),
      60_000
    );
    const worst = await sampler.stop();
    // Assess
    expect(worst.maxPodsOnNode).toBe(1);
    expect(worst.maxUnavailableNodes).toBeLessThanOrEqual(2);
    const pods = await livePodsOf(s.admin, s.ns, 'inplace');
    console.log(`in-place update of ${pods.length} pods took ${ms} ms`);
    expect(pods.map((p) => p.metadata?.uid).sort()).toEqual(before);
    for (const pod of pods) {
      expect(pod.spec?.readinessGates).toEqual([
        { conditionType: 'InPlaceUpdateReady' },
      ]);
      expect(
        pod.metadata?.annotations?.['apps.kruise.io/inplace-update-state']
      ).toContain('"revision"');
      expect(pod.status?.containerStatuses?.[0]?.imageID).toBe(
        'kwok://agent:2'
      );
    }
  });

  it('keeps placing pods beside an AdvancedDaemonSet with an invalid selector and a pod naming it', async () => {
    // Prepare: a selector the CRD lets through (`Exists` with values:
    // its CEL reads only the key), and a pod naming that AdvancedDaemonSet
    // as its controller.
    await createAds(s, 'steady', {});
    const steady = async (nodes: readonly string[]) => {
      const ds = await s.admin.request<DaemonSet>(
        'get steady',
        'GET',
        `${advancedDaemonSetsPath(s.ns)}/steady`
      );
      const pods = await livePodsOf(s.admin, s.ns, 'steady');
      return (
        ds.status?.numberAvailable === nodes.length &&
        nodes.every((n) => pods.some((p) => p.spec?.nodeName === n))
      );
    };
    await eventually('steady converged', () => steady(s.nodes), 60_000);
    await createAds(s, 'poison', {
      selector: {
        matchExpressions: [
          { key: 'app', operator: 'Exists', values: ['poison'] },
        ],
      },
    });
    const poison = await s.admin.request<DaemonSet>(
      'get poison',
      'GET',
      `${advancedDaemonSetsPath(s.ns)}/poison`
    );
    const uid = poison.metadata?.uid ?? '';
    expect(uid).not.toBe('');
    await s.admin.request(
      'create owned pod',
      'POST',
      `/api/v1/namespaces/${s.ns}/pods`,
      {
        body: JSON.stringify({
          metadata: {
            name: 'named-by-poison',
            labels: { app: 'poison-pod' },
            ownerReferences: [
              {
                apiVersion: 'apps.dsr.dev/v1beta1',
                kind: 'AdvancedDaemonSet',
                name: 'poison',
                uid,
                controller: true,
              },
            ],
          },
          spec: {
            nodeName: s.nodes[0],
            containers: [{ name: 'c', image: 'agent:1' }],
          },
        }),
      }
    );
    // Act
    const [added] = await s.addNodes(1);
    // Assess
    await eventually(
      'steady runs on the added node, its pod events counted',
      () => steady(s.nodes),
      60_000
    );
    const onAdded = (await livePodsOf(s.admin, s.ns, 'steady')).filter(
      (p) => p.spec?.nodeName === added
    );
    expect(onAdded).toHaveLength(1);
    // Pod events still flow after the pod naming the invalid one: a
    // deleted pod, which only its delete event reports, is replaced.
    const [victim] = await livePodsOf(s.admin, s.ns, 'steady');
    await s.admin.request(
      'delete steady pod',
      'DELETE',
      `/api/v1/namespaces/${s.ns}/pods/${victim?.metadata?.name}?gracePeriodSeconds=0`
    );
    await eventually(
      'the deleted pod replaced',
      async () =>
        (await livePodsOf(s.admin, s.ns, 'steady')).some(
          (p) =>
            p.spec?.nodeName === victim?.spec?.nodeName &&
            p.metadata?.uid !== victim?.metadata?.uid
        ),
      60_000
    );
  });
});
