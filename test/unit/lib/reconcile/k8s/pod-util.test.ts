/**
 * Tests for lib/reconcile/pod-util.ts: upstream `TestIsPodUpdated`
 * (pkg/controller/daemon/util/daemonset_util_test.go) case by case, plus the
 * podutil predicates, `GetTemplateGeneration` and the
 * `podByCreationTimestampAndPhase` ordering.
 */
import { describe, expect, it } from 'vitest';
import { isDeleting } from '#lib/reconcile/k8s/meta.js';
import {
  compareByCreationTimestampAndPhase,
  getPodReadyCondition,
  getTemplateGeneration,
  isPodAvailable,
  isPodReady,
  isPodTerminal,
  isPodUpdated,
  parseTime,
  podName,
  sortByCreationTimestampAndPhase,
} from '#lib/reconcile/k8s/pod-util.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  TEMPLATE_GENERATION_ANNOTATION,
  TEMPLATE_GENERATION_LABEL,
} from '#lib/reconcile/k8s/types.js';
import { markPodReady, newDaemonSet } from '../../../../helpers/builders.js';

/** util_test's `newPod(podName, nodeName, label)`. */
const utilPod = (
  name: string,
  nodeName: string,
  labels?: Record<string, string>
): Pod => ({
  apiVersion: 'v1',
  metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  spec: { nodeName, containers: [{ name: 'c', image: 'foo/bar' }] },
});

describe('isPodUpdated (util.IsPodUpdated)', () => {
  const templateGeneration = '12345';
  const badGeneration = '12350';
  const hash = '55555';
  const labels = {
    [TEMPLATE_GENERATION_LABEL]: templateGeneration,
    [CONTROLLER_REVISION_HASH_LABEL]: hash,
  };
  const labelsNoHash = { [TEMPLATE_GENERATION_LABEL]: templateGeneration };

  it.each([
    {
      test: 'templateGeneration and hash both match',
      generation: templateGeneration,
      labels,
      hash,
      isUpdated: true,
    },
    {
      test: "templateGeneration matches, hash doesn't",
      generation: templateGeneration,
      labels,
      hash: `${hash}123`,
      isUpdated: true,
    },
    {
      test: 'templateGeneration matches, no hash label, has hash',
      generation: templateGeneration,
      labels: labelsNoHash,
      hash,
      isUpdated: true,
    },
    {
      test: 'templateGeneration matches, no hash label, no hash',
      generation: templateGeneration,
      labels: labelsNoHash,
      hash: '',
      isUpdated: true,
    },
    {
      test: 'templateGeneration matches, has hash label, no hash',
      generation: templateGeneration,
      labels,
      hash: '',
      isUpdated: true,
    },
    {
      test: "templateGeneration doesn't match, hash does",
      generation: badGeneration,
      labels,
      hash,
      isUpdated: true,
    },
    {
      test: "templateGeneration and hash don't match",
      generation: badGeneration,
      labels,
      hash: `${hash}123`,
      isUpdated: false,
    },
    {
      test: 'empty labels, no hash',
      generation: templateGeneration,
      labels: {},
      hash: '',
      isUpdated: false,
    },
    {
      test: 'empty labels',
      generation: templateGeneration,
      labels: {},
      hash,
      isUpdated: false,
    },
    {
      test: 'no labels',
      generation: templateGeneration,
      labels: undefined,
      hash,
      isUpdated: false,
    },
    {
      test: 'no template generation (nil), hash matches',
      generation: undefined,
      labels,
      hash,
      isUpdated: true,
    },
    {
      test: 'no template generation (nil), hash does not match',
      generation: undefined,
      labels,
      hash: 'other',
      isUpdated: false,
    },
  ])('TestIsPodUpdated: $test', (c) => {
    // Prepare
    const pod = utilPod('pod1', 'node1', c.labels);
    // Act
    const updated = isPodUpdated(pod, c.hash, c.generation);
    // Assess
    expect(updated).toBe(c.isUpdated);
  });
});

describe('getTemplateGeneration (util.GetTemplateGeneration)', () => {
  const withAnnotation = (value?: string): DaemonSet => {
    const ds = newDaemonSet('foo');
    ds.metadata = {
      ...ds.metadata,
      annotations:
        value === undefined ? {} : { [TEMPLATE_GENERATION_ANNOTATION]: value },
    };
    return ds;
  };

  it.each([
    { name: 'a plain integer', value: '7', want: '7' },
    { name: 'leading zeros (ParseInt then Sprint)', value: '007', want: '7' },
    { name: 'a negative integer', value: '-3', want: '-3' },
    {
      name: 'a number beyond 2^53',
      value: '9007199254740993',
      want: '9007199254740993',
    },
    { name: 'no annotation', value: undefined, want: undefined },
    {
      name: 'a non-number (ignored like upstream)',
      value: 'abc',
      want: undefined,
    },
    { name: 'an empty value', value: '', want: undefined },
  ])('reads $name', ({ value, want }) => {
    // Act / Assess
    expect(getTemplateGeneration(withAnnotation(value))).toBe(want);
  });

  it('reads nothing from a DaemonSet without metadata', () => {
    // Act / Assess
    expect(getTemplateGeneration({})).toBeUndefined();
  });
});

describe('readiness (podutil.IsPodReady, IsPodAvailable)', () => {
  const T = Date.UTC(2026, 0, 1);

  it('finds the Ready condition and reads its status', () => {
    // Prepare
    const ready = markPodReady(utilPod('p', 'n'), T);
    const notReady: Pod = {
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    };
    // Act / Assess
    expect(getPodReadyCondition(ready)?.status).toBe('True');
    expect(getPodReadyCondition({})).toBeUndefined();
    expect(isPodReady(ready)).toBe(true);
    expect(isPodReady(notReady)).toBe(false);
    expect(isPodReady({})).toBe(false);
  });

  it('is available at once with minReadySeconds 0', () => {
    // Prepare
    const pod = markPodReady(utilPod('p', 'n'), T);
    // Act / Assess
    expect(isPodAvailable(pod, 0, T - 1_000)).toBe(true);
  });

  it('is available once ready for minReadySeconds, boundary included (<=)', () => {
    // Prepare
    const pod = markPodReady(utilPod('p', 'n'), T);
    // Act / Assess
    expect(isPodAvailable(pod, 10, T + 9_999)).toBe(false);
    expect(isPodAvailable(pod, 10, T + 10_000)).toBe(true);
    expect(isPodAvailable(pod, 10, T + 10_001)).toBe(true);
  });

  it('is never available when not ready or without a transition time', () => {
    // Prepare
    const noTime: Pod = {
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    // Act / Assess
    expect(isPodAvailable(utilPod('p', 'n'), 0, T)).toBe(false);
    expect(isPodAvailable(noTime, 0, T)).toBe(true);
    expect(isPodAvailable(noTime, 1, T)).toBe(false);
  });

  it('parses RFC 3339 times and reads an absent one as NaN', () => {
    // Act / Assess
    expect(parseTime('2026-01-01T00:00:00Z')).toBe(T);
    expect(parseTime(undefined)).toBeNaN();
  });
});

describe('isPodTerminal / isDeleting', () => {
  it.each([
    { phase: 'Succeeded', terminal: true },
    { phase: 'Failed', terminal: true },
    { phase: 'Running', terminal: false },
    { phase: 'Pending', terminal: false },
    { phase: undefined, terminal: false },
  ])('calls phase $phase terminal: $terminal', ({ phase, terminal }) => {
    // Act / Assess
    expect(isPodTerminal({ status: phase ? { phase } : {} })).toBe(terminal);
  });

  it('sees a deletion timestamp, and not an absent or null one', () => {
    // Prepare
    const wireNull = JSON.parse(
      '{"metadata":{"name":"p","deletionTimestamp":null}}'
    ) as Pod;
    // Act / Assess
    expect(
      isDeleting({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } })
    ).toBe(true);
    expect(isDeleting({ metadata: {} })).toBe(false);
    expect(isDeleting({})).toBe(false);
    expect(isDeleting(wireNull)).toBe(false);
  });
});

describe('podByCreationTimestampAndPhase', () => {
  const pod = (name: string, nodeName: string, created?: string): Pod => ({
    metadata: {
      name,
      ...(created ? { creationTimestamp: created } : {}),
    },
    spec: { containers: [], ...(nodeName ? { nodeName } : {}) },
  });

  it('orders bound pods first, then older, then by name', () => {
    // Prepare
    const unboundOld = pod('a', '', '2026-01-01T00:00:00Z');
    const boundNewB = pod('b', 'n', '2026-01-03T00:00:00Z');
    const boundNewA = pod('a', 'n', '2026-01-03T00:00:00Z');
    const boundOld = pod('z', 'n', '2026-01-02T00:00:00Z');
    // Act
    const sorted = sortByCreationTimestampAndPhase([
      unboundOld,
      boundNewB,
      boundNewA,
      boundOld,
    ]);
    // Assess
    expect(sorted).toEqual([boundOld, boundNewA, boundNewB, unboundOld]);
  });

  it('returns a copy and leaves the input order alone', () => {
    // Prepare
    const input = [pod('b', 'n'), pod('a', 'n')];
    // Act
    const sorted = sortByCreationTimestampAndPhase(input);
    // Assess
    expect(sorted.map(podName)).toEqual(['a', 'b']);
    expect(input.map(podName)).toEqual(['b', 'a']);
  });

  it('compares equal pods as 0 and treats a missing timestamp as the epoch', () => {
    // Prepare
    const same = pod('a', 'n', '2026-01-01T00:00:00Z');
    const noTime = pod('z', 'n');
    // Act / Assess
    expect(compareByCreationTimestampAndPhase(same, { ...same })).toBe(0);
    expect(compareByCreationTimestampAndPhase(noTime, same)).toBeLessThan(0);
    expect(compareByCreationTimestampAndPhase({}, {})).toBe(0);
    expect(compareByCreationTimestampAndPhase({}, noTime)).toBeGreaterThan(0);
    expect(compareByCreationTimestampAndPhase(noTime, {})).toBeLessThan(0);
    expect(podName({})).toBe('');
  });
});
