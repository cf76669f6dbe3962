/**
 * Tests for lib/reconcile/pod-template.ts: upstream `TestCreatePodTemplate`
 * (pkg/controller/daemon/util/daemonset_util_test.go) plus
 * `getPodsPrefix` and the pod `GetPodFromTemplate` builds for one node.
 */
import { describe, expect, it } from 'vitest';
import type { PodTemplateSpec } from '#lib/reconcile/k8s/types.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_LABEL,
} from '#lib/reconcile/k8s/types.js';
import {
  createPodTemplate,
  getPodsPrefix,
  newDaemonPod,
} from '#lib/reconcile/pod-template.js';
import { newDaemonSet } from '../../../helpers/builders.js';

describe('createPodTemplate (util.CreatePodTemplate)', () => {
  it.each([
    { generation: '1', hash: '', expectUniqueLabel: false },
    { generation: '2', hash: '3242341807', expectUniqueLabel: true },
  ])('TestCreatePodTemplate: generation $generation, hash "$hash"', (c) => {
    // Prepare
    const template: PodTemplateSpec = {};
    // Act
    const got = createPodTemplate(template, c.generation, c.hash);
    // Assess
    const labels = got.metadata?.labels ?? {};
    expect(labels[TEMPLATE_GENERATION_LABEL]).toBe(c.generation);
    if (c.expectUniqueLabel) {
      expect(labels[CONTROLLER_REVISION_HASH_LABEL]).toBe(c.hash);
    } else {
      expect(labels).not.toHaveProperty(CONTROLLER_REVISION_HASH_LABEL);
    }
  });

  it('TestCreatePodTemplate: sets no generation label without a template generation', () => {
    // Act
    const got = createPodTemplate({}, undefined, 'h');
    // Assess
    expect(got.metadata?.labels).toEqual({
      [CONTROLLER_REVISION_HASH_LABEL]: 'h',
    });
  });

  it('keeps the template labels, adds the daemon tolerations and leaves the input alone', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const template = ds.spec?.template as PodTemplateSpec;
    const before = structuredClone(template);
    // Act
    const got = createPodTemplate(template, '1', 'h');
    // Assess
    expect(got.metadata?.labels).toEqual({
      ...template.metadata?.labels,
      [TEMPLATE_GENERATION_LABEL]: '1',
      [CONTROLLER_REVISION_HASH_LABEL]: 'h',
    });
    expect(got.spec?.tolerations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          key: 'node.kubernetes.io/not-ready',
          effect: 'NoExecute',
        }),
        expect.objectContaining({
          key: 'node.kubernetes.io/unschedulable',
          effect: 'NoSchedule',
        }),
      ])
    );
    expect(got.spec?.containers).toEqual(template.spec?.containers);
    expect(template).toEqual(before);
  });
});

describe('getPodsPrefix', () => {
  it.each([
    { name: 'a DNS name', dsName: 'foo', want: 'foo-' },
    { name: 'a dotted name', dsName: 'a.b', want: 'a.b-' },
    { name: 'an invalid name', dsName: 'Foo_Bar', want: 'Foo_Bar' },
    {
      name: 'a name of 252 chars',
      dsName: 'a'.repeat(252),
      want: `${'a'.repeat(252)}-`,
    },
    {
      name: 'a name of 253 chars',
      dsName: 'a'.repeat(253),
      want: 'a'.repeat(253),
    },
  ])('returns the prefix for $name', ({ dsName, want }) => {
    // Act / Assess
    expect(getPodsPrefix(dsName)).toBe(want);
  });
});

describe('newDaemonPod (GetPodFromTemplate + node affinity)', () => {
  it('pins the pod to the node and copies labels, annotations and finalizers', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const template: PodTemplateSpec = {
      metadata: {
        labels: { a: '1' },
        annotations: { b: '2' },
        finalizers: ['f'],
      },
      spec: {
        containers: [{ name: 'c' }],
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 1, preference: { matchExpressions: [] } },
            ],
          },
        },
      },
    };
    // Act
    const pod = newDaemonPod(template, ds, 'node-1');
    // Assess
    expect(pod.metadata).toEqual({
      generateName: 'foo-',
      labels: { a: '1' },
      annotations: { b: '2' },
      finalizers: ['f'],
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          name: 'foo',
          uid: ds.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(pod.spec?.affinity?.nodeAffinity).toEqual({
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 1, preference: { matchExpressions: [] } },
      ],
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchFields: [
              { key: 'metadata.name', operator: 'In', values: ['node-1'] },
            ],
          },
        ],
      },
    });
    expect(template.spec?.affinity?.nodeAffinity).not.toHaveProperty(
      'requiredDuringSchedulingIgnoredDuringExecution'
    );
  });

  it('builds a pod from an empty template', () => {
    // Act
    const pod = newDaemonPod({}, {}, 'n');
    // Assess
    expect(pod.metadata).toEqual({
      generateName: '',
      ownerReferences: [expect.objectContaining({ name: '', uid: '' })],
    });
    expect(pod.spec?.containers).toEqual([]);
  });
});
