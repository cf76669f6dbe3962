/**
 * kube-controller-manager's own DaemonSet controller as the oracle: for
 * twelve varied templates, the ControllerRevision data it stores equals the
 * sync core's getPatch byte for byte, the pods it creates equal the pods the
 * sync core would create, and taking the DaemonSets over from it restarts
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import { getTemplateGeneration } from '#lib/reconcile/k8s/pod-util.js';
import type {
  ControllerRevision,
  DaemonSet,
  Pod,
  PodTemplateSpec,
} from '#lib/reconcile/k8s/types.js';
import {
  createPodTemplate,
  newDaemonPod,
} from '#lib/reconcile/pod-template.js';
import { getPatch } from '#lib/reconcile/revision-hash.js';
import {
  type Component,
  stopProcess,
  tailLog,
  waitFor,
} from '../../lib/local-cluster/processes.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import { rawMember } from '../testbed/raw-json.js';
import { startUpstreamDaemonSetController } from '../testbed/upstream-controller.js';
import { oracleTemplates } from './oracle-templates.js';
import { adminHttp, CLUSTER, realDeps, syncUntil } from './sync-loop.js';

const SERVER_SET = [
  'name',
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'managedFields',
  'generation',
];

/** Returns the pod without what the API server, scheduler or kubelet set. */
const comparable = (pod: Pod) => {
  const metadata = Object.fromEntries(
    Object.entries(pod.metadata ?? {}).filter(([k]) => !SERVER_SET.includes(k))
  );
  const { nodeName: _bound, ...spec } = pod.spec ?? { containers: [] };
  return { metadata: { ...metadata, namespace: undefined }, spec };
};

describe('upstream DaemonSet controller as the oracle', () => {
  const run = `oracle-${Date.now().toString(36)}`;
  let http: KubeHttp;
  let upstream: Component | undefined;
  let nodes: string[] = [];
  const ns = (name: string) => `${run}-${name}`;

  beforeAll(async () => {
    let lastWaiting: string[] = [];
    http = adminHttp();
    nodes = await createNodes(http, 2, {
      prefix: `${run}-`,
      labels: { oracle: run },
    });
    for (const { name, template } of oracleTemplates) {
      await createNamespace(http, ns(name));
      const spec = structuredClone(template);
      spec.spec = {
        ...spec.spec,
        containers: spec.spec?.containers ?? [],
        nodeSelector: { ...spec.spec?.nodeSelector, oracle: run },
      };
      await http.request(
        'create ds',
        'POST',
        `/apis/apps/v1/namespaces/${ns(name)}/daemonsets`,
        {
          body: JSON.stringify({
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            metadata: { name },
            spec: {
              selector: { matchLabels: template.metadata?.labels },
              template: spec,
            },
          }),
        }
      );
    }
    upstream = await startUpstreamDaemonSetController({
      binDir: inject('binDir'),
      kubeconfigPath: inject('kubeconfigPath'),
      logDir: inject('logDir'),
    });
    await waitFor(
      'upstream to place every pod',
      async () => {
        const waiting: string[] = [];
        for (const { name } of oracleTemplates) {
          const pods = await http.list<Pod>(
            'list pods',
            `/api/v1/namespaces/${ns(name)}/pods`
          );
          const bound = pods.filter((p) => p.spec?.nodeName).length;
          if (bound < 2)
            waiting.push(`${name} (${pods.length} pods, ${bound} bound)`);
        }
        lastWaiting = waiting;
        return waiting.length === 0 ? true : undefined;
      },
      90_000,
      500
    ).catch((e: unknown) => {
      throw new Error(
        `${String(e)}; still waiting for ${lastWaiting.join(', ')}\n${upstream ? tailLog(upstream, 20) : ''}`
      );
    });
    await stopProcess(upstream);
  });

  afterAll(async () => {
    if (upstream) await stopProcess(upstream);
    await deleteNodes(http, nodes);
    for (const { name } of oracleTemplates)
      await deleteNamespace(http, ns(name));
    http.close();
  });

  it.each(oracleTemplates.map((t) => t.name))(
    '%s: revision data is byte-identical to upstream',
    async (name) => {
      // Prepare
      const ds = await http.request<DaemonSet>(
        'get ds',
        'GET',
        `/apis/apps/v1/namespaces/${ns(name)}/daemonsets/${name}`
      );
      const revisions = await http.list<ControllerRevision>(
        'list cr',
        `/apis/apps/v1/namespaces/${ns(name)}/controllerrevisions`
      );
      expect(revisions).toHaveLength(1);
      // Act
      const text = await http.requestText(
        'get cr',
        'GET',
        `/apis/apps/v1/namespaces/${ns(name)}/controllerrevisions/${revisions[0]?.metadata?.name}`
      );
      // Assess
      expect(rawMember(text, 'data')).toBe(getPatch(ds));
    }
  );

  it.each(oracleTemplates.map((t) => t.name))(
    '%s: our pod equals upstream pod field by field',
    async (name) => {
      // Prepare
      const ds = await http.request<DaemonSet>(
        'get ds',
        'GET',
        `/apis/apps/v1/namespaces/${ns(name)}/daemonsets/${name}`
      );
      const [theirs] = await http.list<Pod>(
        'list pods',
        `/api/v1/namespaces/${ns(name)}/pods`
      );
      const hash = theirs?.metadata?.labels?.['controller-revision-hash'] ?? '';
      const template = createPodTemplate(
        ds.spec?.template as PodTemplateSpec,
        getTemplateGeneration(ds),
        hash
      );
      const target = theirs?.spec?.nodeName ?? '';
      // Act: let the API server default our pod without storing it.
      const ours = await http.request<Pod>(
        'dry-run create',
        'POST',
        `/api/v1/namespaces/${ns(name)}/pods`,
        {
          query: { dryRun: 'All' },
          body: JSON.stringify({
            apiVersion: 'v1',
            kind: 'Pod',
            ...newDaemonPod(template, ds, target),
            metadata: {
              ...newDaemonPod(template, ds, target).metadata,
              name: 'dry-run',
            },
          }),
        }
      );
      // Assess
      expect(comparable(ours)).toEqual(comparable(theirs as Pod));
    }
  );

  it('takes over every DaemonSet without restarting a pod', async () => {
    // Prepare
    const before = new Map<string, string[]>();
    for (const { name } of oracleTemplates) {
      const pods = await http.list<Pod>(
        'list pods',
        `/api/v1/namespaces/${ns(name)}/pods`
      );
      before.set(name, pods.map((p) => p.metadata?.uid ?? '').sort());
    }
    const deps = realDeps(http);
    // Act
    for (const { name } of oracleTemplates) {
      await syncUntil(`${CLUSTER}/${ns(name)}/${name}`, deps, async () => {
        const ds = await http.request<DaemonSet>(
          'get ds',
          'GET',
          `/apis/apps/v1/namespaces/${ns(name)}/daemonsets/${name}`
        );
        return (
          ds.status?.numberAvailable === 2 &&
          (ds.status.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 1)
        );
      });
    }
    // Assess
    for (const { name } of oracleTemplates) {
      const pods = await http.list<Pod>(
        'list pods',
        `/api/v1/namespaces/${ns(name)}/pods`
      );
      expect(pods.map((p) => p.metadata?.uid ?? '').sort()).toEqual(
        before.get(name)
      );
      const revisions = await http.list<ControllerRevision>(
        'list cr',
        `/apis/apps/v1/namespaces/${ns(name)}/controllerrevisions`
      );
      expect(revisions).toHaveLength(1);
    }
  });
});
