/**
 * The own kind's CRD types what placement reads of the pod template
 * (nodeSelector, tolerations, affinity.nodeAffinity) and the label-key
 * syntax of the selector, on the real API server: a malformed shape is
 * refused with a message naming the field instead of being stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubeApiError } from '#lib/errors.js';
import {
  advancedDaemonSetsPath,
  ensureAdvancedDaemonSetCrd,
} from '../testbed/advanced-daemonset-crd.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import { adminHttp } from './sync-loop.js';

type Obj = Record<string, unknown>;

const manifest = (name: string, podSpec: Obj, selector?: Obj): Obj => ({
  apiVersion: 'apps.dsr.dev/v1beta1',
  kind: 'AdvancedDaemonSet',
  metadata: { name },
  spec: {
    selector: selector ?? { matchLabels: { app: 'agent' } },
    template: {
      metadata: { labels: { app: 'agent' } },
      spec: {
        containers: [{ name: 'agent', image: 'registry.local/a:1' }],
        ...podSpec,
      },
    },
  },
});

describe('the AdvancedDaemonSet CRD on placement fields', () => {
  const ns = `crdp-${Date.now().toString(36)}`;
  let http: KubeHttp;
  let seq = 0;
  const name = () => `ads-${++seq}`;

  const create = async (obj: Obj): Promise<Obj | KubeApiError> => {
    try {
      return await http.request<Obj>(
        'create ads',
        'POST',
        advancedDaemonSetsPath(ns),
        { body: JSON.stringify(obj) }
      );
    } catch (e) {
      if (e instanceof KubeApiError) return e;
      throw e;
    }
  };

  beforeAll(async () => {
    http = adminHttp();
    await ensureAdvancedDaemonSetCrd(http);
    await createNamespace(http, ns);
  });

  afterAll(async () => {
    await deleteNamespace(http, ns);
    http.close();
  });

  it.each([
    {
      what: 'tolerations as a map',
      podSpec: { tolerations: { a: 1 } },
      message: 'spec.template.spec.tolerations: Invalid value: "object"',
    },
    {
      what: 'nodeSelectorTerms as a string',
      podSpec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: 'x',
            },
          },
        },
      },
      message: 'nodeSelectorTerms: Invalid value: "string"',
    },
    {
      what: 'a nodeSelector value that is not a string',
      podSpec: { nodeSelector: { zone: 1 } },
      message: 'spec.template.spec.nodeSelector.zone: Invalid value: "integer"',
    },
  ])('refuses $what, naming the field', async ({ podSpec, message }) => {
    // Act
    const result = await create(manifest(name(), podSpec));
    // Assess
    expect(result).toBeInstanceOf(KubeApiError);
    expect((result as KubeApiError).statusCode).toBe(422);
    expect((result as KubeApiError).message).toContain(message);
  });

  it.each([
    { matchLabels: { 'bad key!': 'agent' } },
    { matchExpressions: [{ key: 'bad key!', operator: 'Exists' }] },
  ])('refuses a selector label key of bad syntax (%j)', async (selector) => {
    // Act
    const result = await create(manifest(name(), {}, selector));
    // Assess
    expect(result).toBeInstanceOf(KubeApiError);
    expect((result as KubeApiError).message).toContain(
      'selector label keys must be valid label keys'
    );
  });

  it('accepts the upstream shapes of all three', async () => {
    // Act
    const result = await create(
      manifest(name(), {
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [
          {
            key: 'dedicated',
            operator: 'Equal',
            value: 'infra',
            effect: 'NoSchedule',
          },
          { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
        ],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'zone', operator: 'In', values: ['a', 'b'] },
                  ],
                  matchFields: [
                    { key: 'metadata.name', operator: 'NotIn', values: ['n9'] },
                  ],
                },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 1,
                preference: {
                  matchExpressions: [{ key: 'ssd', operator: 'Exists' }],
                },
              },
            ],
          },
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [],
          },
        },
      })
    );
    // Assess
    expect(result).not.toBeInstanceOf(KubeApiError);
    const spec = (result as { spec: { template: { spec: Obj } } }).spec.template
      .spec;
    expect(spec.tolerations).toHaveLength(2);
    expect(spec.affinity).toHaveProperty('podAntiAffinity');
  });
});
