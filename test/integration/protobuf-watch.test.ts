/**
 * Pod and node watches in protobuf against the real API server: every event
 * of a pod's life (created with every field a sync reads, run by KWOK,
 * relabelled, held by a finalizer while deleted, gone) and of a tainted
 * node's decodes into exactly the fields the JSON watch of the same objects
 * has, in about half the bytes; and an error answering the watch reads the
 * same in both.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import {
  type MessageSchema,
  projectMessage,
} from '#lib/adapters/kube/client/protobuf/message-schema.js';
import { NODE } from '#lib/adapters/kube/client/protobuf/node-schema.js';
import { POD } from '#lib/adapters/kube/client/protobuf/pod-schema.js';
import { ApiErrorReason, isApiError, KubeApiError } from '#lib/errors.js';
import {
  createNodes,
  deleteNodes,
  UNMANAGED_LABEL,
} from '#lib/local-cluster/simulated-nodes.js';
import type { WatchEvent } from '#lib/ports/index.js';
import type { Node, Pod } from '#lib/reconcile/k8s/types.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import { adminHttp } from './sync-loop.js';

const APP = 'pb';

describe('pod and node watches in protobuf', () => {
  const ns = `protobuf-${Date.now().toString(36)}`;
  const podsPath = `/api/v1/namespaces/${ns}/pods`;
  /** Requests, and a connection per watch, so each counts its own bytes. */
  let json: KubeHttp;
  let jsonWatch: KubeHttp;
  let protobufWatch: KubeHttp;
  let nodes: string[] = [];

  beforeAll(async () => {
    json = adminHttp();
    jsonWatch = adminHttp();
    protobufWatch = adminHttp();
    await createNamespace(json, ns);
    nodes = await createNodes(json, 1, { prefix: `${ns}-` });
  });

  afterAll(async () => {
    await deleteNodes(json, nodes);
    await deleteNamespace(json, ns);
    for (const http of [json, jsonWatch, protobufWatch]) http.close();
  });

  const currentVersion = async () =>
    (
      await json.request<{ metadata: { resourceVersion: string } }>(
        'list pods',
        'GET',
        podsPath,
        { query: { limit: 1 } }
      )
    ).metadata.resourceVersion;

  /** Collects a watch's events (bookmarks left out) until aborted. */
  const collect = <T = Pod>(
    http: KubeHttp,
    resourceVersion: string,
    signal: AbortSignal,
    schema?: MessageSchema,
    { path = podsPath, labelSelector = `app=${APP}` } = {}
  ) => {
    const events: WatchEvent<T>[] = [];
    const done = (async () => {
      const stream = http.watch<T>(
        `watch ${path}`,
        path,
        { resourceVersion, labelSelector, timeoutSeconds: 60 },
        signal,
        schema
      );
      for await (const event of stream) {
        if (event.type !== 'BOOKMARK') events.push(event);
      }
    })();
    // Awaited by the test; a test that failed first leaves it to end alone.
    done.catch(() => undefined);
    return { events, done };
  };

  /** The JSON watch's events, projected onto `schema`. */
  const projected = <T>(schema: MessageSchema, events: WatchEvent<T>[]) =>
    events.map((e) => ({
      type: e.type,
      object: projectMessage(schema, e.object as Record<string, unknown>),
    }));

  it('decodes every event into the fields of the same pods’ JSON watch, in fewer bytes', async () => {
    // Prepare
    const from = await currentVersion();
    const stop = new AbortController();
    const asJson = collect(jsonWatch, from, stop.signal);
    const asProtobuf = collect(protobufWatch, from, stop.signal, POD);
    const owner = await json.request<{ metadata: { uid: string } }>(
      'create cm',
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      { body: JSON.stringify({ metadata: { name: 'owner' } }) }
    );
    // Act: a pod with every field a sync reads, run by KWOK on the node
    await json.request('create pod', 'POST', podsPath, {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'full',
          labels: { app: APP, 'controller-revision-hash': '6d9f' },
          annotations: { 'apps.kruise.io/inplace-update-state': '{}' },
          finalizers: ['dsr.test/hold'],
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'owner',
              uid: owner.metadata.uid,
              controller: true,
              blockOwnerDeletion: false,
            },
          ],
        },
        spec: {
          nodeName: nodes[0],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  {
                    matchFields: [
                      {
                        key: 'metadata.name',
                        operator: 'In',
                        values: [nodes[0]],
                      },
                    ],
                    matchExpressions: [{ key: 'type', operator: 'Exists' }],
                  },
                ],
              },
            },
          },
          tolerations: [{ operator: 'Exists' }],
          readinessGates: [{ conditionType: 'dsr.test/gate' }],
          containers: [{ name: 'c', image: 'agent:1' }],
        },
      }),
    });
    // A pod no node takes: pending, its PodScheduled condition False
    await json.request('create pod', 'POST', podsPath, {
      body: JSON.stringify({
        metadata: { name: 'pending', labels: { app: APP } },
        spec: {
          nodeSelector: { nowhere: 'true' },
          containers: [{ name: 'c', image: 'agent:1' }],
        },
      }),
    });
    await vi.waitFor(
      async () => {
        const pod = await json.request<Pod>(
          'get pod',
          'GET',
          `${podsPath}/full`
        );
        expect(pod.status?.containerStatuses?.length).toBe(1);
      },
      { timeout: 20_000, interval: 200 }
    );
    await json.request('label pod', 'PATCH', `${podsPath}/full`, {
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ metadata: { labels: { extra: '' } } }),
    });
    await json.request('delete pod', 'DELETE', `${podsPath}/full`, {
      query: { gracePeriodSeconds: 0 },
    });
    // KWOK releases a deleted pod it runs itself; else this does.
    await json
      .request('release pod', 'PATCH', `${podsPath}/full`, {
        contentType: 'application/merge-patch+json',
        body: JSON.stringify({ metadata: { finalizers: null } }),
      })
      .catch((e: unknown) => {
        if (!isApiError(e, ApiErrorReason.NotFound)) throw e;
      });
    await json.request('delete pod', 'DELETE', `${podsPath}/pending`, {
      query: { gracePeriodSeconds: 0 },
    });
    const deleted = (events: WatchEvent<Pod>[]) =>
      events.filter((e) => e.type === 'DELETED').length;
    await vi.waitFor(
      () => {
        expect(deleted(asJson.events)).toBe(2);
        expect(deleted(asProtobuf.events)).toBe(2);
      },
      { timeout: 20_000, interval: 100 }
    );
    stop.abort();
    await Promise.all([asJson.done, asProtobuf.done]);
    // Assess: the same events, the same kept fields
    expect(asProtobuf.events).toEqual(projected(POD, asJson.events));
    const full = asProtobuf.events.filter(
      (e) => e.object.metadata?.name === 'full'
    );
    expect(full.some((e) => e.object.metadata?.deletionTimestamp)).toBe(true);
    expect(
      full.some(
        (e) => e.object.status?.containerStatuses?.[0]?.imageID !== undefined
      )
    ).toBe(true);
    const ratio = protobufWatch.stats.bytesRead / jsonWatch.stats.bytesRead;
    expect(ratio).toBeLessThan(0.75);
  });

  it('decodes every event of a node into the fields of its JSON watch, taints in the same text', async () => {
    // Prepare
    const from = await currentVersion();
    const stop = new AbortController();
    const where = { path: '/api/v1/nodes', labelSelector: `pb=${ns}` };
    const asJson = collect<Node>(
      jsonWatch,
      from,
      stop.signal,
      undefined,
      where
    );
    const asProtobuf = collect<Node>(
      protobufWatch,
      from,
      stop.signal,
      NODE,
      where
    );
    const name = `${ns}-tainted`;
    // Act: a node KWOK leaves alone, its taints with and without value and time
    await json.request('create node', 'POST', '/api/v1/nodes', {
      body: JSON.stringify({
        metadata: {
          name,
          labels: { pb: ns, empty: '', [UNMANAGED_LABEL]: 'true' },
          annotations: { 'kwok.x-k8s.io/node': 'fake' },
        },
        spec: {
          taints: [
            { key: 'dedicated', value: 'agents', effect: 'NoSchedule' },
            {
              key: 'node.kubernetes.io/unreachable',
              effect: 'NoExecute',
              timeAdded: '2026-11-28T22:00:00Z',
            },
          ],
        },
      }),
    });
    await json.request('label node', 'PATCH', `/api/v1/nodes/${name}`, {
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ metadata: { labels: { role: 'agent' } } }),
    });
    await json.request('delete node', 'DELETE', `/api/v1/nodes/${name}`);
    await vi.waitFor(
      () => {
        expect(asJson.events.at(-1)?.type).toBe('DELETED');
        expect(asProtobuf.events.at(-1)?.type).toBe('DELETED');
      },
      { timeout: 20_000, interval: 100 }
    );
    stop.abort();
    await Promise.all([asJson.done, asProtobuf.done]);
    // Assess
    expect(asProtobuf.events).toEqual(projected(NODE, asJson.events));
    const taints = (e?: WatchEvent<Node>) =>
      JSON.stringify(e?.object.spec?.taints);
    expect(taints(asProtobuf.events[0])).toBe(taints(asJson.events[0]));
    expect(asProtobuf.events[0]?.object.status).toBeUndefined();
  });

  // (A 410 is not provoked here: the API server serves an old version from
  // etcd when its watch cache no longer has it, and etcd is not compacted;
  // the unit tests and the fault proxy's test read protobuf 410s.)
  it('fails a watch with a malformed selector (the answer itself: 400) as the JSON watch fails it', async () => {
    // Prepare
    const selector = 'app in (';
    const from = await currentVersion();
    const fail = (http: KubeHttp, schema?: MessageSchema) =>
      drain(
        http.watch<Pod>(
          'watch pods',
          podsPath,
          {
            resourceVersion: from,
            labelSelector: selector,
            timeoutSeconds: 10,
          },
          undefined,
          schema
        )
      ).then(
        () => undefined,
        (e: unknown) => e
      );
    // Act
    const [fromJson, fromProtobuf] = await Promise.all([
      fail(jsonWatch),
      fail(protobufWatch, POD),
    ]);
    // Assess
    expect(fromJson).toBeInstanceOf(KubeApiError);
    const what = (e: unknown) => {
      const error = e as KubeApiError;
      return [error.statusCode, error.reason, error.causes, error.message];
    };
    expect(what(fromProtobuf)).toEqual(what(fromJson));
    expect((fromProtobuf as KubeApiError).statusCode).toBe(400);
  });
});

const drain = async (events: AsyncIterable<unknown>) => {
  for await (const _ of events) {
    // Only the error matters.
  }
};
