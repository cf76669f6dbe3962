/**
 * The Kubernetes adapter against a real API server: every read and write the
 * sync core uses, and each typed error provoked for real.
 */

import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubeClusterReader } from '#lib/adapters/kube/kube-cluster-reader.js';
import { KubePodControl } from '#lib/adapters/kube/kube-pod-control.js';
import { KubeRevisionControl } from '#lib/adapters/kube/kube-revision-control.js';
import { KubeStatusWriter } from '#lib/adapters/kube/kube-status-writer.js';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import { fieldManagerFor } from '#lib/policy/identity.js';
import { adoptPatch, releasePatch } from '#lib/reconcile/k8s/controller-ref.js';
import { NATIVE_DAEMON_SET } from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { getPatch } from '#lib/reconcile/revision-hash.js';
import { newControllerRevision } from '#lib/reconcile/revision-history.js';
import { waitFor } from '../../lib/local-cluster/processes.js';
import { FakeEventRecorder } from '../helpers/fakes/fake-event-recorder.js';
import {
  createNamespace,
  createPodQuota,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import { rawMember } from '../testbed/raw-json.js';

const dsBody = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'pause <&> ü' }] },
    },
  },
});

const rejection = async (p: Promise<unknown>): Promise<KubeApiError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof KubeApiError) return e;
    throw e;
  }
  throw new Error('expected a KubeApiError');
};

describe('Kubernetes adapter on a real API server', () => {
  let http: KubeHttp;
  let reader: KubeClusterReader;
  let events: FakeEventRecorder;
  let pods: KubePodControl;
  let revisions: KubeRevisionControl;
  let status: KubeStatusWriter;
  let ds: DaemonSet;
  const ns = `adapter-${Date.now().toString(36)}`;

  beforeAll(async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(inject('kubeconfigPath'));
    http = new KubeHttp({ kubeConfig: kc });
    reader = new KubeClusterReader({ http, kind: NATIVE_DAEMON_SET });
    events = new FakeEventRecorder();
    pods = new KubePodControl({ http, events });
    revisions = new KubeRevisionControl({ http });
    status = new KubeStatusWriter({ http });
    await createNamespace(http, ns);
    ds = await http.request<DaemonSet>(
      'create ds',
      'POST',
      `/apis/apps/v1/namespaces/${ns}/daemonsets`,
      {
        body: JSON.stringify(dsBody('agent')),
      }
    );
  });

  afterAll(async () => {
    await deleteNamespace(http, ns);
    http.close();
  });

  it('writes under the deployment’s field manager, which the API server records (F9)', async () => {
    // Prepare
    const kc = new KubeConfig();
    kc.loadFromFile(inject('kubeconfigPath'));
    const manager = fieldManagerFor(
      'serverless-daemonset-reconciler-dev-eu-west-1'
    );
    const dev = new KubeHttp({ kubeConfig: kc, userAgent: manager });
    try {
      // Act
      await dev.request(
        'create configmap',
        'POST',
        `/api/v1/namespaces/${ns}/configmaps`,
        {
          body: JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'written-by-dev' },
            data: { a: 'b' },
          }),
        }
      );
      const cm = await http.request<{ metadata: DaemonSet['metadata'] }>(
        'get configmap',
        'GET',
        `/api/v1/namespaces/${ns}/configmaps/written-by-dev`
      );
      // Assess
      expect(cm.metadata?.managedFields?.map((f) => f.manager)).toEqual([
        'serverless-daemonset-reconciler.serverless-daemonset-reconciler-dev-eu-west-1',
      ]);
    } finally {
      dev.close();
    }
  });

  it('reads a DaemonSet and answers undefined for a missing one', async () => {
    // Act
    const got = await reader.getDaemonSet(ns, 'agent');
    const missing = await reader.getDaemonSetFresh(ns, 'nope');
    // Assess
    expect(got?.metadata?.uid).toBe(ds.metadata?.uid);
    expect(got?.spec?.template.spec?.containers[0]?.image).toBe('pause <&> ü');
    expect(missing).toBeUndefined();
  });

  it('creates a pod with generateName, returns its resourceVersion and records SuccessfulCreate', async () => {
    // Prepare
    const pod: Pod = {
      metadata: { generateName: 'agent-', labels: { app: 'agent' } },
      spec: {
        // Never scheduled: a node another file deletes meanwhile would
        // leave its delete pending until podgc (flaked once in a full run).
        // No scheduler claims it either, so nothing writes the pod between
        // its create and the list (kube-scheduler's Unschedulable status
        // did, and moved its resourceVersion, in a CI run).
        schedulerName: 'dsr-test-no-scheduler',
        nodeSelector: { 'dsr.dev/test': 'no-such-node' },
        containers: [{ name: 'c', image: 'pause' }],
      },
    };
    // Act
    const resourceVersion = await pods.createPod(ns, pod, ds);
    // Assess
    const listed = await reader.listPods(ns, ds);
    expect(listed.map((p) => p.metadata?.name)).toEqual([
      expect.stringMatching(/^agent-[a-z0-9]{5}$/),
    ]);
    expect(resourceVersion).toBe(listed[0]?.metadata?.resourceVersion);
    expect(events.events.at(-1)).toMatchObject({
      type: 'Normal',
      reason: 'SuccessfulCreate',
    });
  });

  it('asks for a created or deleted pod’s metadata only, in protobuf: its name and resourceVersion at a fraction of the whole pod’s bytes and of its JSON metadata’s', async () => {
    // Prepare: the same pod created through the adapter, whole, as JSON metadata.
    const pod: Pod = {
      metadata: { generateName: 'answer-', labels: { app: 'answer' } },
      spec: {
        schedulerName: 'dsr-test-no-scheduler',
        containers: [{ name: 'c', image: 'pause' }],
      },
    };
    const read = async (write: () => Promise<unknown>) => {
      const before = http.stats.bytesRead;
      const answer = await write();
      return { answer, bytes: http.stats.bytesRead - before };
    };
    // Act
    const viaAdapter = await read(() => pods.createPod(ns, pod, ds));
    const whole = await read(() =>
      http.request<Pod>(
        'create whole',
        'POST',
        `/api/v1/namespaces/${ns}/pods`,
        {
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...pod }),
        }
      )
    );
    const jsonMetadata = await read(() =>
      http.request<Pod>(
        'create as JSON metadata',
        'POST',
        `/api/v1/namespaces/${ns}/pods`,
        {
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...pod }),
          accept:
            'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
        }
      )
    );
    const name = (whole.answer as Pod).metadata?.name ?? '';
    const listed = (
      await http.list<Pod>('list', `/api/v1/namespaces/${ns}/pods`, {
        labelSelector: 'app=answer',
      })
    ).find((p) => p.metadata?.resourceVersion === viaAdapter.answer);
    const deleted = await read(() =>
      pods.deletePod(ns, listed?.metadata?.name ?? '', ds)
    );
    const deletedWhole = await read(() =>
      http.request(
        'delete whole',
        'DELETE',
        `/api/v1/namespaces/${ns}/pods/${name}`
      )
    );
    // Assess
    expect(listed).toBeDefined();
    expect(viaAdapter.bytes).toBeLessThan(whole.bytes * 0.5);
    expect(viaAdapter.bytes).toBeLessThan(jsonMetadata.bytes * 0.75);
    expect(deleted.bytes).toBeLessThan(deletedWhole.bytes * 0.5);
  });

  it('adopts and releases a pod with upstream patches', async () => {
    // Prepare
    const [pod] = await reader.listPods(ns, ds);
    const name = pod?.metadata?.name ?? '';
    // Act
    await pods.patchPod(ns, name, {
      type: 'strategic',
      body: adoptPatch(ds, pod?.metadata?.uid ?? ''),
    });
    const adopted = (await reader.listPods(ns, ds)).find(
      (p) => p.metadata?.name === name
    );
    await pods.patchPod(ns, name, {
      type: 'strategic',
      body: releasePatch(ds, pod?.metadata?.uid ?? ''),
    });
    const released = (await reader.listPods(ns, ds)).find(
      (p) => p.metadata?.name === name
    );
    // Assess
    expect(adopted?.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        uid: ds.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      }),
    ]);
    expect(released?.metadata?.ownerReferences ?? []).toEqual([]);
  });

  it('deletes a pod and turns a second delete into NotFound', async () => {
    // Prepare
    const [pod] = await reader.listPods(ns, ds);
    const name = pod?.metadata?.name ?? '';
    // Act
    await pods.deletePod(ns, name, ds);
    await waitFor(
      'pod gone',
      async () => {
        const left = await reader.listPods(ns, ds);
        return left.some((p) => p.metadata?.name === name) ? undefined : true;
      },
      30_000
    );
    const before = events.events.length;
    const err = await rejection(pods.deletePod(ns, name, ds));
    // Assess
    expect(err.reason).toBe(ApiErrorReason.NotFound);
    expect(events.events.length).toBe(before);
    expect(events.events.some((e) => e.reason === 'SuccessfulDelete')).toBe(
      true
    );
  });

  it('stores ControllerRevision data byte for byte', async () => {
    // Prepare
    const cr = newControllerRevision(ds, 'abc123', 1);
    // Act
    await revisions.createRevision(ns, cr);
    const text = await http.requestText(
      'get cr',
      'GET',
      `/apis/apps/v1/namespaces/${ns}/controllerrevisions/agent-abc123`
    );
    // Assess
    expect(rawMember(text, 'data')).toBe(getPatch(ds));
    const listed = await reader.listControllerRevisions(ns);
    expect(listed.map((r) => r.revision)).toEqual([1]);
  });

  it('answers AlreadyExists for a duplicate revision name', async () => {
    // Act
    const err = await rejection(
      revisions.createRevision(ns, newControllerRevision(ds, 'abc123', 2))
    );
    // Assess
    expect(err.reason).toBe(ApiErrorReason.AlreadyExists);
  });

  it('answers Conflict for a status write with a stale resourceVersion', async () => {
    // Prepare
    const current = (await reader.getDaemonSet(ns, 'agent')) as DaemonSet;
    await status.updateStatus({
      ...current,
      status: {
        ...current.status,
        numberMisscheduled: 0,
        currentNumberScheduled: 0,
        desiredNumberScheduled: 1,
        numberReady: 0,
      },
    });
    // Act
    const err = await rejection(
      status.updateStatus({
        ...current,
        status: {
          ...current.status,
          numberMisscheduled: 0,
          currentNumberScheduled: 0,
          desiredNumberScheduled: 2,
          numberReady: 0,
        },
      })
    );
    // Assess
    expect(err.reason).toBe(ApiErrorReason.Conflict);
  });

  it('fails creates beyond a ResourceQuota with Forbidden and records FailedCreate', async () => {
    // Prepare: one pod allowed, one taken.
    await createPodQuota(http, ns, { name: 'q', hard: 1, used: 1 });
    const pod: Pod = {
      metadata: { generateName: 'agent-', labels: { app: 'agent' } },
      spec: {
        // Never scheduled: a node another file deletes meanwhile would
        // leave its delete pending until podgc (flaked once in a full run).
        // No scheduler claims it either, so nothing writes the pod between
        // its create and the list (kube-scheduler's Unschedulable status
        // did, and moved its resourceVersion, in a CI run).
        schedulerName: 'dsr-test-no-scheduler',
        nodeSelector: { 'dsr.dev/test': 'no-such-node' },
        containers: [{ name: 'c', image: 'pause' }],
      },
    };
    // Act
    const err = await waitFor(
      'quota enforced',
      async () => {
        try {
          await pods.createPod(ns, pod, ds);
          return undefined;
        } catch (e) {
          return e instanceof KubeApiError ? e : undefined;
        }
      },
      20_000
    );
    // Assess
    expect(err.reason).toBe(ApiErrorReason.Forbidden);
    expect(events.events.at(-1)).toMatchObject({
      type: 'Warning',
      reason: 'FailedCreate',
    });
  });

  it('reports NamespaceTerminating on creates in a terminating namespace', async () => {
    // Prepare
    const doomed = `${ns}-gone`;
    await createNamespace(http, doomed);
    await http.request(
      'create pod with finalizer',
      'POST',
      `/api/v1/namespaces/${doomed}/pods`,
      {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'held', finalizers: ['example.com/hold'] },
          spec: { containers: [{ name: 'c', image: 'pause' }] },
        }),
      }
    );
    await deleteNamespace(http, doomed);
    const before = events.events.length;
    // Act
    const err = await rejection(
      pods.createPod(
        doomed,
        {
          metadata: { generateName: 'x-', labels: { a: 'b' } },
          spec: { containers: [{ name: 'c', image: 'pause' }] },
        },
        ds
      )
    );
    // Assess
    expect(err.causes).toContain('NamespaceTerminating');
    expect(events.events.length).toBe(before);
    await http.request(
      'release finalizer',
      'PATCH',
      `/api/v1/namespaces/${doomed}/pods/held`,
      {
        body: '{"metadata":{"finalizers":null}}',
        contentType: 'application/merge-patch+json',
      }
    );
  });

  it('answers Unauthorized for a wrong token', async () => {
    // Prepare
    const kc = new KubeConfig();
    kc.loadFromFile(inject('kubeconfigPath'));
    const user = kc.getCurrentUser();
    if (user) Object.assign(user, { token: 'wrong' });
    const bad = new KubeHttp({ kubeConfig: kc });
    // Act
    const err = await rejection(
      bad.request('list nodes', 'GET', '/api/v1/nodes')
    );
    bad.close();
    // Assess
    expect(err.reason).toBe(ApiErrorReason.Unauthorized);
    expect(err.message).not.toContain('wrong');
  });
});
