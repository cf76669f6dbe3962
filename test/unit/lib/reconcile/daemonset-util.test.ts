import { describe, expect, it } from 'vitest';
import {
  createPodTemplate,
  getPodsPrefix,
  newDaemonPod,
} from '#lib/reconcile/pod-template.js';
import {
  compareByCreationTimestampAndPhase,
  getTemplateGeneration,
  isPodAvailable,
  isPodUpdated,
} from '#lib/reconcile/pod-util.js';
import type { Pod } from '#lib/reconcile/types.js';
import { newDaemonSet } from '../../../helpers/builders.js';

const podWith = (labels?: Record<string, string>): Pod => ({
  metadata: labels ? { labels } : {},
});

describe('isPodUpdated (util.IsPodUpdated)', () => {
  it.each<{
    name: string;
    labels?: Record<string, string>;
    gen?: string;
    hash: string;
    want: boolean;
  }>([
    {
      name: 'templateGeneration and hash match',
      labels: {
        'pod-template-generation': '1',
        'controller-revision-hash': 'h',
      },
      gen: '1',
      hash: 'h',
      want: true,
    },
    {
      name: 'templateGeneration matches, hash does not',
      labels: {
        'pod-template-generation': '1',
        'controller-revision-hash': 'x',
      },
      gen: '1',
      hash: 'h',
      want: true,
    },
    {
      name: 'hash matches, templateGeneration does not',
      labels: {
        'pod-template-generation': '2',
        'controller-revision-hash': 'h',
      },
      gen: '1',
      hash: 'h',
      want: true,
    },
    {
      name: 'neither matches',
      labels: {
        'pod-template-generation': '2',
        'controller-revision-hash': 'x',
      },
      gen: '1',
      hash: 'h',
      want: false,
    },
    {
      name: 'empty hash never matches',
      labels: { 'controller-revision-hash': '' },
      gen: undefined,
      hash: '',
      want: false,
    },
    {
      name: 'no template generation',
      labels: { 'pod-template-generation': '1' },
      gen: undefined,
      hash: 'h',
      want: false,
    },
    {
      name: 'pod without labels',
      labels: undefined,
      gen: '1',
      hash: 'h',
      want: false,
    },
  ])('TestIsPodUpdated: $name', ({ labels, gen, hash, want }) => {
    // Act / Assess
    expect(isPodUpdated(podWith(labels), hash, gen)).toBe(want);
  });
});

describe('createPodTemplate (util.CreatePodTemplate)', () => {
  it.each([
    {
      name: 'generation and hash',
      gen: '1',
      hash: 'abc',
      want: {
        'pod-template-generation': '1',
        'controller-revision-hash': 'abc',
      },
    },
    {
      name: 'no generation',
      gen: undefined,
      hash: 'abc',
      want: { 'controller-revision-hash': 'abc' },
    },
    {
      name: 'no hash',
      gen: '2',
      hash: '',
      want: { 'pod-template-generation': '2' },
    },
  ])('TestCreatePodTemplate: $name', ({ gen, hash, want }) => {
    // Prepare
    const template = {
      metadata: { labels: { app: 'a' } },
      spec: { containers: [] },
    };
    // Act
    const out = createPodTemplate(template, gen, hash);
    // Assess
    expect(out.metadata?.labels).toEqual({ app: 'a', ...want });
    expect(out.spec?.tolerations).toHaveLength(6);
    expect(template.metadata.labels).toEqual({ app: 'a' });
  });

  it('builds labels for a template without metadata or spec', () => {
    // Act
    const out = createPodTemplate({}, undefined, 'h');
    // Assess
    expect(out.metadata?.labels).toEqual({ 'controller-revision-hash': 'h' });
    expect(out.spec?.containers).toEqual([]);
  });
});

describe('newDaemonPod (GetPodFromTemplate)', () => {
  it('copies labels, annotations and finalizers, pins the node and sets the controller ref', () => {
    // Prepare
    const ds = newDaemonSet('agent');
    const template = createPodTemplate(
      {
        metadata: {
          labels: { a: 'b' },
          annotations: { n: 'v' },
          finalizers: ['f'],
        },
        spec: { containers: [] },
      },
      '1',
      'h'
    );
    // Act
    const pod = newDaemonPod(template, ds, 'node-7');
    // Assess
    expect(pod.metadata).toEqual({
      generateName: 'agent-',
      labels: {
        a: 'b',
        'pod-template-generation': '1',
        'controller-revision-hash': 'h',
      },
      annotations: { n: 'v' },
      finalizers: ['f'],
      ownerReferences: [
        expect.objectContaining({
          kind: 'DaemonSet',
          name: 'agent',
          controller: true,
          blockOwnerDeletion: true,
        }),
      ],
    });
    expect(
      pod.spec?.affinity?.nodeAffinity
        ?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms
    ).toEqual([
      {
        matchFields: [
          { key: 'metadata.name', operator: 'In', values: ['node-7'] },
        ],
      },
    ]);
    expect(pod.spec?.nodeName).toBeUndefined();
  });

  it('builds a pod from an empty template', () => {
    // Act
    const pod = newDaemonPod({}, newDaemonSet('x'), 'n');
    // Assess
    expect(pod.metadata?.labels).toBeUndefined();
    expect(pod.spec?.containers).toEqual([]);
  });

  it.each([
    { name: 'agent', want: 'agent-' },
    { name: 'a'.repeat(253), want: 'a'.repeat(253) },
    { name: 'Bad_Name', want: 'Bad_Name' },
    { name: '', want: '' },
  ])('prefixes pods of $name with $want', ({ name, want }) => {
    // Act / Assess
    expect(getPodsPrefix(name)).toBe(want);
    expect(newDaemonPod({}, { metadata: {} }, 'n').metadata?.generateName).toBe(
      ''
    );
  });
});

describe('pod predicates', () => {
  const ready = (since?: string): Pod => ({
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          ...(since ? { lastTransitionTime: since } : {}),
        },
      ],
    },
  });

  it('is available once ready for minReadySeconds, boundary included', () => {
    // Prepare
    const pod = ready('2026-01-01T00:00:00Z');
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    // Act / Assess
    expect(isPodAvailable(pod, 10, t0 + 9_999)).toBe(false);
    expect(isPodAvailable(pod, 10, t0 + 10_000)).toBe(true);
    expect(isPodAvailable(pod, 0, t0)).toBe(true);
    expect(isPodAvailable(ready(), 10, t0)).toBe(false);
    expect(isPodAvailable({}, 0, t0)).toBe(false);
  });

  it('orders bound pods first, then older, then by name', () => {
    // Prepare
    const p = (name: string, node?: string, created?: string): Pod => ({
      metadata: { name, ...(created ? { creationTimestamp: created } : {}) },
      spec: { containers: [], ...(node ? { nodeName: node } : {}) },
    });
    const pods = [
      p('d', undefined, '2026-01-01T00:00:00Z'),
      p('c', 'n', '2026-01-02T00:00:00Z'),
      p('b', 'n', '2026-01-01T00:00:00Z'),
      p('a', 'n', '2026-01-01T00:00:00Z'),
      p('e'),
      p('e'),
      { metadata: {} },
    ];
    // Act
    const sorted = [...pods].sort(compareByCreationTimestampAndPhase);
    // Assess
    expect(sorted.map((x) => x.metadata?.name)).toEqual([
      'a',
      'b',
      'c',
      undefined,
      'e',
      'e',
      'd',
    ]);
  });

  it('reads the template generation annotation', () => {
    // Prepare
    const ds = newDaemonSet('x');
    // Act / Assess
    expect(getTemplateGeneration(ds)).toBe('1');
    expect(
      getTemplateGeneration({
        metadata: {
          annotations: { 'deprecated.daemonset.template.generation': 'x' },
        },
      })
    ).toBeUndefined();
    expect(getTemplateGeneration({})).toBeUndefined();
  });
});
