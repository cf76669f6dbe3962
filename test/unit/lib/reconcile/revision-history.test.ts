/**
 * Tests for lib/reconcile/revision-history.ts: the revision object upstream
 * `snapshot` creates, `dedupCurHistories`' choice of the revision to keep
 * and `cleanupHistory`'s choice of revisions to delete
 * (pkg/controller/daemon/update.go).
 */
import { describe, expect, it } from 'vitest';
import type {
  ControllerRevision,
  DaemonSet,
  Pod,
} from '#lib/reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '#lib/reconcile/k8s/types.js';
import { getPatch } from '#lib/reconcile/revision-hash.js';
import {
  DEFAULT_REVISION_HISTORY_LIMIT,
  newControllerRevision,
  pickRevisionToKeep,
  planCleanupHistory,
} from '#lib/reconcile/revision-history.js';
import {
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';

const revision = (
  ds: DaemonSet,
  hash: string,
  number: number
): ControllerRevision => newControllerRevision(ds, hash, number);

const podWithHash = (hash?: string): Pod =>
  newPod('p-', 'n', {
    ...simpleDaemonSetLabel,
    ...(hash === undefined ? {} : { [CONTROLLER_REVISION_HASH_LABEL]: hash }),
  });

describe('newControllerRevision (snapshot)', () => {
  it('names, labels, annotates and owns the revision like upstream', () => {
    // Prepare
    const ds = newDaemonSet('foo', 'ns');
    // Act
    const got = newControllerRevision(ds, 'abc', 4);
    // Assess
    expect(got).toEqual({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'foo-abc',
        namespace: 'ns',
        labels: {
          ...simpleDaemonSetLabel,
          [CONTROLLER_REVISION_HASH_LABEL]: 'abc',
        },
        annotations: ds.metadata?.annotations,
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
      },
      data: JSON.parse(getPatch(ds)),
      revision: 4,
    });
  });

  it('copies annotations only when the DaemonSet has some', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const bare: DaemonSet = {
      ...ds,
      metadata: { ...ds.metadata, annotations: undefined },
    };
    // Act
    const got = newControllerRevision(bare, 'h', 1);
    // Assess
    expect(got.metadata).not.toHaveProperty('annotations');
  });

  it('labels a revision of a template without labels with the hash only', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    if (ds.spec) ds.spec.template.metadata = {};
    // Act
    const got = newControllerRevision(ds, 'h', 1);
    // Assess
    expect(got.metadata?.labels).toEqual({
      [CONTROLLER_REVISION_HASH_LABEL]: 'h',
    });
  });
});

describe('pickRevisionToKeep (dedupCurHistories)', () => {
  const ds = newDaemonSet('foo');

  it('keeps the duplicate with the highest revision', () => {
    // Act / Assess
    expect(
      pickRevisionToKeep([revision(ds, 'a', 3), revision(ds, 'b', 1)])?.metadata
        ?.name
    ).toBe('foo-a');
    expect(
      pickRevisionToKeep([revision(ds, 'a', 1), revision(ds, 'b', 3)])?.metadata
        ?.name
    ).toBe('foo-b');
  });

  it('keeps the last one on a tie, as upstream', () => {
    // Act / Assess
    expect(
      pickRevisionToKeep([revision(ds, 'a', 2), revision(ds, 'b', 2)])?.metadata
        ?.name
    ).toBe('foo-b');
  });

  it('keeps nothing of nothing', () => {
    // Act / Assess
    expect(pickRevisionToKeep([])).toBeUndefined();
  });
});

describe('planCleanupHistory (cleanupHistory)', () => {
  const withLimit = (limit?: number): DaemonSet => {
    const ds = newDaemonSet('foo');
    if (ds.spec) ds.spec.revisionHistoryLimit = limit;
    return ds;
  };
  const old = (ds: DaemonSet, n: number) =>
    Array.from({ length: n }, (_, i) => revision(ds, `h${i + 1}`, i + 1));

  it('deletes nothing while within revisionHistoryLimit', () => {
    // Prepare
    const ds = withLimit(2);
    // Act / Assess
    expect(planCleanupHistory(ds, old(ds, 2), [])).toEqual([]);
    expect(planCleanupHistory(ds, [], [])).toEqual([]);
  });

  it('deletes the oldest revisions first, whatever the input order', () => {
    // Prepare
    const ds = withLimit(1);
    const revisions = old(ds, 4).reverse();
    // Act
    const got = planCleanupHistory(ds, revisions, []);
    // Assess
    expect(got).toEqual(['foo-h1', 'foo-h2', 'foo-h3']);
  });

  it('never deletes a revision a live pod still carries', () => {
    // Prepare
    const ds = withLimit(1);
    const pods = [podWithHash('h1'), podWithHash('h3'), podWithHash()];
    // Act
    const got = planCleanupHistory(ds, old(ds, 4), pods);
    // Assess: 3 to kill, but only h2 and h4 are free.
    expect(got).toEqual(['foo-h2', 'foo-h4']);
  });

  it('deletes everything old with a limit of 0', () => {
    // Prepare
    const ds = withLimit(0);
    // Act / Assess
    expect(planCleanupHistory(ds, old(ds, 2), [])).toEqual([
      'foo-h1',
      'foo-h2',
    ]);
  });

  it(`defaults the limit to ${DEFAULT_REVISION_HISTORY_LIMIT}`, () => {
    // Prepare
    const ds = withLimit(undefined);
    // Act / Assess
    expect(planCleanupHistory(ds, old(ds, 10), [])).toEqual([]);
    expect(planCleanupHistory(ds, old(ds, 11), [])).toEqual(['foo-h1']);
  });

  it('spares no revision for a pod without hash label', () => {
    // Prepare
    const ds = withLimit(0);
    const unlabelled = revision(ds, 'x', 1);
    unlabelled.metadata = { ...unlabelled.metadata, labels: {} };
    // Act
    const got = planCleanupHistory(ds, [unlabelled], [podWithHash()]);
    // Assess
    expect(got).toEqual(['foo-x']);
  });
});
