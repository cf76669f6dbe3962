/**
 * The native OnDelete mode as managed clusters run it: kube-controller-
 * manager's own DaemonSet controller stays on (as on EKS) and creates every
 * pod; the cluster is registered with ownership apps/v1+OnDelete, reached
 * under infra/kubernetes/rbac-on-delete.yaml (no create, no DaemonSet or
 * revision write), on the serverless wiring. A Helm-like DaemonSet keeps
 * `updateStrategy: OnDelete` and opts in with the apps.dsr.dev/rollout
 * annotation; the product rolls it out by deleting old pods within the
 * budget, and never touches a DaemonSet that did not opt in.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import { USER_AGENT } from '#lib/policy/identity.js';
import { KRUISE_POD_READY } from '#lib/reconcile/advanced/pod-readiness.js';
import {
  LIFECYCLE_STATE_LABEL,
  PREPARING_DELETE,
} from '#lib/reconcile/advanced/rollout-controls.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
import {
  PAUSED_ANNOTATION,
  ROLLOUT_ANNOTATION,
} from '#lib/reconcile/on-delete/rollout-annotation.js';
import {
  type Component,
  stopProcess,
} from '../../../lib/local-cluster/processes.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { startUpstreamDaemonSetController } from '../../testbed/upstream-controller.js';
import { isPodAvailable, livePodsOf } from './cluster-state.js';
import { labelNode } from './daemon-set-fixtures.js';
import { E2eScenario } from './e2e-scenario.js';
import { RolloutSampler } from './rollout-sampler.js';
import { eventually } from './stack.js';

/** The test's own writes carry this field manager, not the product's. */
const ADMIN = 'e2e-admin';
const NAME = 'agent';

type Event = {
  reason?: string;
  type?: string;
  message?: string;
  reportingComponent?: string;
};

describe('serverless runtime: native OnDelete DaemonSets beside kube-controller-manager’s DaemonSet controller', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  let upstream: Component | undefined;

  const path = (name = NAME) =>
    `/apis/apps/v1/namespaces/${s.ns}/daemonsets/${name}`;
  const get = (name = NAME) =>
    s.admin.request<DaemonSet>(`get ${name}`, 'GET', path(name));
  const patch = (name: string, body: object) =>
    s.admin.request(
      `patch ${name}`,
      'PATCH',
      `${path(name)}?fieldManager=${ADMIN}`,
      {
        body: JSON.stringify(body),
        contentType: 'application/merge-patch+json',
      }
    );
  const setControls = (controls: object | string, name = NAME) =>
    patch(name, {
      metadata: {
        annotations: {
          [ROLLOUT_ANNOTATION]:
            typeof controls === 'string' ? controls : JSON.stringify(controls),
        },
      },
    });
  const setImage = (image: string, name = NAME) =>
    patch(name, {
      spec: { template: { spec: { containers: [{ name: 'c', image }] } } },
    });
  const create = (
    name: string,
    controls: string | undefined,
    type = 'OnDelete',
    readinessGates: { conditionType: string }[] = []
  ) =>
    s.admin.request(
      `create ${name}`,
      'POST',
      `/apis/apps/v1/namespaces/${s.ns}/daemonsets?fieldManager=${ADMIN}`,
      {
        body: JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: {
            name,
            ...(controls !== undefined && {
              annotations: { [ROLLOUT_ANNOTATION]: controls },
            }),
          },
          spec: {
            selector: { matchLabels: { app: name } },
            updateStrategy: { type },
            template: {
              metadata: { labels: { app: name } },
              spec: {
                nodeSelector: s.selector,
                containers: [{ name: 'c', image: 'agent:1' }],
                ...(readinessGates.length > 0 && { readinessGates }),
              },
            },
          },
        }),
      }
    );
  const images = async (name = NAME) =>
    (await livePodsOf(s.admin, s.ns, name))
      .map((p) => p.spec?.containers[0]?.image ?? '')
      .sort();
  /** Every node runs one available pod of `image` and status says so. */
  const converged = async (image: string, name = NAME) => {
    const pods = await livePodsOf(s.admin, s.ns, name);
    const ds = await get(name);
    return (
      ds.status?.observedGeneration === ds.metadata?.generation &&
      pods.length === s.nodes.length &&
      s.nodes.every((node) => {
        const on = pods.filter((p) => p.spec?.nodeName === node);
        return (
          on.length === 1 &&
          on[0]?.spec?.containers[0]?.image === image &&
          isPodAvailable(on[0])
        );
      })
    );
  };
  const uids = async (name = NAME) =>
    (await livePodsOf(s.admin, s.ns, name)).map((p) => p.metadata?.uid).sort();
  const eventsOf = (name: string) =>
    s.admin.list<Event>('list events', `/api/v1/namespaces/${s.ns}/events`, {
      fieldSelector: `involvedObject.name=${name}`,
    });
  const sample = (name = NAME) =>
    RolloutSampler.start(s.admin, s.ns, s.nodes, {
      labelSelector: `app=${name}`,
    });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const written: string[] = [];
  const plugin: PluginDeps = {
    open: (t) =>
      openAdvancedDaemonSets({
        kubeconfig: t.kubeconfig ?? inject('kubeconfigPath'),
      }),
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    write: (text) => written.push(text),
  };
  const kubectlDsr = (...argv: string[]) =>
    runPlugin([...argv, '-n', s.ns], plugin);

  beforeAll(async () => {
    s = new E2eScenario('sls-ondel');
    await s.open({ nodes: 5, stack: { ownership: 'apps/v1+OnDelete' } });
    // As on EKS: the cluster's own DaemonSet controller runs.
    upstream = await startUpstreamDaemonSetController({
      binDir: inject('binDir'),
      kubeconfigPath: inject('kubeconfigPath'),
      logDir: inject('logDir'),
    });
    // The gate lets the preDelete hook take a held pod out of service.
    await create(NAME, JSON.stringify({ maxUnavailable: 2 }), 'OnDelete', [
      { conditionType: KRUISE_POD_READY },
    ]);
    await create('plain', undefined);
  });

  afterAll(async () => {
    if (upstream) await stopProcess(upstream);
    await s?.close();
  });

  it('leaves creating every pod to the cluster’s controller, and sets the KruisePodReady gate of its pods', async () => {
    // Act
    await eventually(
      'kube-controller-manager converged both',
      async () => (await converged('agent:1')) && converged('agent:1', 'plain')
    );
    // Assess
    for (const pod of await livePodsOf(s.admin, s.ns, NAME)) {
      const entries = pod.metadata?.managedFields ?? [];
      expect(entries.map((f) => f.manager)).toContain(
        'kube-controller-manager'
      );
      // The product only set the gate's condition.
      expect(
        entries
          .filter((f) => f.manager === USER_AGENT)
          .map((f) => f.subresource)
      ).toEqual(['status']);
      expect(
        pod.status?.conditions?.find((c) => c.type === KRUISE_POD_READY)
      ).toMatchObject({ status: 'True' });
    }
    expect(s.stack.metrics.creates).toBe(0);
  });

  it('rolls a new image out within maxUnavailable 2, its budget sampled continuously, and leaves a DaemonSet that did not opt in', async () => {
    // Prepare
    const plainBefore = await uids('plain');
    const sampler = sample();
    // Act
    await setImage('agent:2');
    await setImage('agent:2', 'plain');
    await eventually('rolled out', () => converged('agent:2'), 60_000);
    const worst = await sampler.stop();
    await pause(2_000);
    // Assess
    expect(worst.samples).toBeGreaterThan(10);
    expect(worst.maxUnavailableNodes).toBeGreaterThan(0);
    expect(worst.maxUnavailableNodes).toBeLessThanOrEqual(2);
    expect(worst.maxPodsOnNode).toBe(1);
    expect(await uids('plain')).toEqual(plainBefore);
    expect(await images('plain')).toEqual(Array(5).fill('agent:1'));
    expect(s.stack.metrics.creates).toBe(0);
    expect(s.stack.metrics.deletes).toBeGreaterThanOrEqual(5);
    // Each delete is told on the DaemonSet as upstream's controller tells it.
    const deletes = (await eventsOf(NAME)).filter(
      (e) =>
        e.reason === 'SuccessfulDelete' && e.reportingComponent === USER_AGENT
    );
    expect(deletes.length).toBeGreaterThanOrEqual(5);
    for (const e of deletes) {
      expect(e).toMatchObject({ type: 'Normal' });
      expect(e.message).toMatch(/^Deleted pod: /);
    }
  });

  it('holds a partition’s old pods, then releases them', async () => {
    // Prepare
    await setControls({ maxUnavailable: 2, partition: 3 });
    // Act
    await setImage('agent:3');
    await eventually(
      'two nodes updated',
      async () => (await images()).filter((i) => i === 'agent:3').length === 2
    );
    await pause(3_000);
    const held = await images();
    await setControls({ maxUnavailable: 2, partition: 0 });
    await eventually('released', () => converged('agent:3'), 60_000);
    // Assess
    expect(held).toEqual([
      'agent:2',
      'agent:2',
      'agent:2',
      'agent:3',
      'agent:3',
    ]);
  });

  it('updates only the canary selector’s nodes, and a node that gains the label', async () => {
    // Prepare
    const [first, second] = [...s.nodes].sort();
    await labelNode(s.admin, first ?? '', { canary: 'true' });
    await setControls({
      maxUnavailable: 2,
      selector: { matchLabels: { canary: 'true' } },
    });
    const imageOn = async (node: string | undefined) =>
      (await livePodsOf(s.admin, s.ns, NAME)).find(
        (p) => p.spec?.nodeName === node
      )?.spec?.containers[0]?.image;
    // Act
    await setImage('agent:4');
    await eventually(
      'canary updated',
      async () => (await imageOn(first)) === 'agent:4'
    );
    await pause(2_000);
    const afterCanary = await images();
    await labelNode(s.admin, second ?? '', { canary: 'true' });
    await eventually(
      'second updated',
      async () => (await imageOn(second)) === 'agent:4'
    );
    const afterSecond = await images();
    await setControls({ maxUnavailable: 2 });
    await eventually('all updated', () => converged('agent:4'), 60_000);
    // Assess
    expect(afterCanary).toEqual([
      'agent:3',
      'agent:3',
      'agent:3',
      'agent:3',
      'agent:4',
    ]);
    expect(afterSecond).toEqual([
      'agent:3',
      'agent:3',
      'agent:3',
      'agent:4',
      'agent:4',
    ]);
  });

  it('pauses with kubectl dsr rollout pause: no pod goes while paused, the rollout resumes after', async () => {
    // Prepare
    const paused = await kubectlDsr('rollout', 'pause', `ds/${NAME}`);
    const before = await uids();
    // Act
    await setImage('agent:5');
    await pause(3_000);
    const during = await uids();
    const waiting = await kubectlDsr(
      'rollout',
      'status',
      `ds/${NAME}`,
      '--watch=false'
    );
    const annotations = (await get()).metadata?.annotations ?? {};
    const resumed = await kubectlDsr('rollout', 'resume', `ds/${NAME}`);
    await eventually('resumed', () => converged('agent:5'), 60_000);
    const done = await kubectlDsr('rollout', 'status', `ds/${NAME}`);
    const history = await kubectlDsr('rollout', 'history', `ds/${NAME}`);
    // Assess
    expect(paused).toEqual({
      exitCode: 0,
      stdout: `daemonset.apps/${NAME} paused\n`,
      stderr: '',
    });
    expect(annotations[PAUSED_ANNOTATION]).toBe('true');
    expect(during).toEqual(before);
    expect(waiting.stdout).toMatch(
      /^Waiting for daemon set "agent" rollout to finish: 0 out of 5 new pods have been updated\.\.\.\n$/
    );
    expect(resumed.stdout).toBe(`daemonset.apps/${NAME} resumed\n`);
    expect(done).toMatchObject({ exitCode: 0 });
    expect(written.at(-1)).toBe(
      `daemon set "${NAME}" successfully rolled out\n`
    );
    expect(history.stdout).toMatch(
      /^daemonset\.apps\/agent \nREVISION {2}CHANGE-CAUSE\n1 /
    );
    expect(
      (await get()).metadata?.annotations?.[PAUSED_ANNOTATION]
    ).toBeUndefined();
  });

  it('tells why kubectl dsr rollout refuses a DaemonSet it does not roll out', async () => {
    // Act
    const plain = await kubectlDsr('rollout', 'status', 'ds/plain');
    const undo = await kubectlDsr('rollout', 'undo', `ds/${NAME}`);
    // Assess
    expect(plain).toEqual({
      exitCode: 1,
      stdout: '',
      stderr:
        'error: daemon set "plain" has no apps.dsr.dev/rollout annotation, so the product does not roll it out (kubectl rollout status ds/plain watches a RollingUpdate DaemonSet)\n',
    });
    expect(undo.exitCode).toBe(1);
    expect(undo.stderr).toContain(
      `kubectl rollout undo ds/${NAME} does that for apps/v1 DaemonSets`
    );
  });

  it('holds one pod at a time behind its preDelete hook, marked not ready', async () => {
    // Prepare: every pod carries the hook's label.
    await setControls({
      maxUnavailable: 1,
      preDelete: { labelsHandler: { hold: 'true' }, markPodNotReady: true },
    });
    for (const pod of await livePodsOf(s.admin, s.ns, NAME)) {
      await s.admin.request(
        'label pod',
        'PATCH',
        `/api/v1/namespaces/${s.ns}/pods/${pod.metadata?.name}`,
        {
          body: JSON.stringify({ metadata: { labels: { hold: 'true' } } }),
          contentType: 'application/merge-patch+json',
        }
      );
    }
    const before = await uids();
    const preparing = async () =>
      (await livePodsOf(s.admin, s.ns, NAME)).filter(
        (p) => p.metadata?.labels?.[LIFECYCLE_STATE_LABEL] === PREPARING_DELETE
      );
    // Act
    await setImage('agent:6');
    await eventually(
      'one pod held',
      async () => (await preparing()).length === 1
    );
    await pause(2_000);
    const [held, ...others] = await preparing();
    const during = await uids();
    await s.admin.request(
      'release',
      'PATCH',
      `/api/v1/namespaces/${s.ns}/pods/${held?.metadata?.name}`,
      {
        body: JSON.stringify({ metadata: { labels: { hold: null } } }),
        contentType: 'application/merge-patch+json',
      }
    );
    await eventually(
      'the released pod replaced',
      async () => !(await uids()).includes(held?.metadata?.uid)
    );
    for (const pod of await livePodsOf(s.admin, s.ns, NAME)) {
      await s.admin.request(
        'release all',
        'PATCH',
        `/api/v1/namespaces/${s.ns}/pods/${pod.metadata?.name}`,
        {
          body: JSON.stringify({ metadata: { labels: { hold: null } } }),
          contentType: 'application/merge-patch+json',
        }
      );
    }
    await eventually('rolled out', () => converged('agent:6'), 60_000);
    // Assess
    expect(others).toEqual([]);
    expect(during).toEqual(before);
    expect(
      held?.status?.conditions?.find((c) => c.type === KRUISE_POD_READY)
    ).toMatchObject({ status: 'False' });
  });

  it('gives a new node a current-revision pod, made by the cluster’s controller', async () => {
    // Act
    const [node] = await s.addNodes(1);
    await eventually('the new node served', () => converged('agent:6'), 60_000);
    // Assess
    const [pod] = (await livePodsOf(s.admin, s.ns, NAME)).filter(
      (p: Pod) => p.spec?.nodeName === node
    );
    const ds = await get();
    expect(
      pod?.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]
    ).toBeDefined();
    expect(pod?.spec?.containers[0]?.image).toBe('agent:6');
    expect(ds.status?.updatedNumberScheduled).toBe(s.nodes.length);
    expect(s.stack.metrics.creates).toBe(0);
  });

  it('refuses maxSurge, an annotation that does not parse, and the opt-in on RollingUpdate, each with its message, deleting nothing', async () => {
    // Prepare
    await create('surge', JSON.stringify({ maxSurge: 1 }));
    await create('garbled', 'maxUnavailable: 2');
    await create('rolling', '{}', 'RollingUpdate');
    await eventually(
      'converged by the cluster',
      async () =>
        (await converged('agent:1', 'surge')) &&
        (await converged('agent:1', 'garbled'))
    );
    const surgeBefore = await uids('surge');
    const garbledBefore = await uids('garbled');
    const deletesBefore = s.stack.metrics.deletes;
    // Act
    await setImage('agent:2', 'surge');
    await setImage('agent:2', 'garbled');
    const warned = async (name: string) =>
      (await eventsOf(name)).find((e) => e.reason === 'InvalidRollout');
    await eventually(
      'each refused',
      async () =>
        (await warned('surge')) !== undefined &&
        (await warned('garbled')) !== undefined &&
        (await warned('rolling')) !== undefined
    );
    await pause(2_000);
    // Assess
    expect((await warned('surge'))?.message).toBe(
      "apps.dsr.dev/rollout: maxSurge cannot work in the OnDelete mode: the cluster's DaemonSet controller creates a pod only where none is left, so no node can run two; remove it, or use an AdvancedDaemonSet for surge"
    );
    expect((await warned('garbled'))?.message).toMatch(
      /^apps\.dsr\.dev\/rollout is not JSON: /
    );
    expect((await warned('rolling'))?.message).toBe(
      "apps.dsr.dev/rollout needs updateStrategy.type OnDelete, not RollingUpdate: the cluster's DaemonSet controller rolls a RollingUpdate DaemonSet itself; set updateStrategy.type: OnDelete (one Helm value) or remove the annotation"
    );
    expect(await uids('surge')).toEqual(surgeBefore);
    expect(await uids('garbled')).toEqual(garbledBefore);
    expect(s.stack.metrics.deletes).toBe(deletesBefore);
  });

  it('wrote nothing but pod deletions and hook patches: no DaemonSet write, no create, no fence', async () => {
    // Act
    const daemonSets = await s.admin.list<DaemonSet>(
      'list ds',
      `/apis/apps/v1/namespaces/${s.ns}/daemonsets`
    );
    const pods = await s.admin.list<Pod>(
      'list pods',
      `/api/v1/namespaces/${s.ns}/pods`
    );
    // Assess
    for (const ds of daemonSets) {
      const managers = (ds.metadata?.managedFields ?? []).map((f) => f.manager);
      expect(managers).not.toContain(USER_AGENT);
      expect(
        (ds.metadata?.managedFields ?? [])
          .filter((f) => f.subresource === 'status')
          .map((f) => f.manager)
      ).toEqual(['kube-controller-manager']);
    }
    for (const pod of pods) {
      for (const f of pod.metadata?.managedFields ?? []) {
        if (f.manager !== USER_AGENT) continue;
        // Only the hook's label and condition patches.
        const fields = JSON.stringify(f.fieldsV1);
        expect(fields).not.toContain('f:ownerReferences');
        expect(fields).not.toContain('f:spec');
      }
    }
    expect(s.stack.metrics.creates).toBe(0);
    expect(s.stack.metrics.conflicts.size).toBe(0);
    expect(
      s.stack.logger.lines.filter(
        (l) =>
          l.level !== 'info' &&
          l.level !== 'debug' &&
          /forbidden/i.test(JSON.stringify(l))
      )
    ).toEqual([]);
  });
});
