/** Fight detection from managedFields: what counts as another controller's write. */
import { describe, expect, it } from 'vitest';
import {
  CLUSTER_DAEMON_SET_CONTROLLER,
  classifyForeignWrites,
  findForeignWrites,
  isRivalController,
  KNOWN_DAEMON_SET_CONTROLLERS,
} from '#lib/policy/foreign-writes.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';

const OURS = 'serverless-daemonset-reconciler';
const statusEntry = (
  manager: string,
  time: string,
  fields: Record<string, unknown> = {
    'f:numberReady': {},
    'f:observedGeneration': {},
  }
) => ({
  manager,
  operation: 'Update',
  subresource: 'status',
  time,
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:status': fields },
});
const withStatusWriters = (
  ...entries: ReturnType<typeof statusEntry>[]
): DaemonSet => {
  const ds = newDaemonSet('agent');
  ds.metadata = { ...ds.metadata, managedFields: entries as never };
  return ds;
};
const podCreatedBy = (ds: DaemonSet, manager: string, created: string): Pod => {
  const pod = newPod('agent-', 'n1', simpleDaemonSetLabel, ds);
  pod.metadata = {
    ...pod.metadata,
    creationTimestamp: created,
    managedFields: [
      {
        manager,
        operation: 'Update',
        time: created,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:ownerReferences': {} } },
      },
    ] as never,
  };
  return pod;
};

describe('findForeignWrites', () => {
  it('sees nothing before our first status write (takeover history)', () => {
    // Prepare
    const ds = withStatusWriters(
      statusEntry('kube-controller-manager', '2026-01-01T00:00:00Z')
    );
    // Act / Assess
    expect(
      findForeignWrites(ds, [
        podCreatedBy(ds, 'kube-controller-manager', '2026-01-01T00:00:00Z'),
      ])
    ).toEqual([]);
  });

  it('reports status counters written by another manager after ours', () => {
    // Prepare
    const ds = withStatusWriters(
      statusEntry(OURS, '2026-01-01T00:00:00Z'),
      statusEntry('kube-controller-manager', '2026-01-01T00:00:05Z')
    );
    // Act / Assess
    expect(findForeignWrites(ds, [])).toEqual([
      'status counters written by kube-controller-manager at 2026-01-01T00:00:05Z',
    ]);
  });

  it('ignores a condition a user or tool wrote after ours (upstream keeps user conditions and goes on)', () => {
    // Prepare: `kubectl patch --subresource=status` of one condition.
    const ds = withStatusWriters(
      statusEntry(OURS, '2026-01-01T00:00:00Z'),
      statusEntry('kubectl-patch', '2026-01-01T00:05:00Z', {
        'f:conditions': { 'k:{"type":"Upgrade"}': {} },
      })
    );
    // Act / Assess
    expect(findForeignWrites(ds, [])).toEqual([]);
  });

  it('ignores another manager whose status write is older than ours', () => {
    // Prepare
    const ds = withStatusWriters(
      statusEntry('kube-controller-manager', '2026-01-01T00:00:00Z'),
      statusEntry(OURS, '2026-01-01T00:00:05Z')
    );
    // Act / Assess
    expect(findForeignWrites(ds, [])).toEqual([]);
  });

  it('reports a controlled pod created by another manager after our status write, not our own pods or older ones', () => {
    // Prepare
    const ds = withStatusWriters(statusEntry(OURS, '2026-01-01T00:00:05Z'));
    const theirs = podCreatedBy(
      ds,
      'kube-controller-manager',
      '2026-01-01T00:00:09Z'
    );
    const ours = podCreatedBy(ds, OURS, '2026-01-01T00:00:09Z');
    const older = podCreatedBy(
      ds,
      'kube-controller-manager',
      '2026-01-01T00:00:01Z'
    );
    const unrelated = podCreatedBy(
      newDaemonSet('other'),
      'kube-controller-manager',
      '2026-01-01T00:00:09Z'
    );
    // Act
    const found = findForeignWrites(ds, [theirs, ours, older, unrelated]);
    // Assess
    expect(found).toEqual([
      `pod ${theirs.metadata?.name} created by kube-controller-manager`,
    ]);
  });

  it('counts a controlled pod that kubectl created as stray, not as a rival controller', () => {
    // Prepare: a namespace user copies the DaemonSet's ownerReference.
    const ds = withStatusWriters(statusEntry(OURS, '2026-01-01T00:00:05Z'));
    const pod = podCreatedBy(ds, 'kubectl-create', '2026-01-01T00:00:09Z');
    // Act
    const found = classifyForeignWrites(ds, [pod]);
    // Assess
    expect(found).toEqual({
      rival: [],
      stray: [`pod ${pod.metadata?.name} created by kubectl-create`],
    });
    expect(findForeignWrites(ds, [pod])).toEqual([]);
  });

  it.each([
    ['kruise-manager', []],
    ['serverless-daemonset-reconciler.dsr-dev-eu-west-1', []],
    ['my-controller', [statusEntry('my-controller', '2026-01-01T00:00:01Z')]],
  ])('counts the pods of %s as a rival’s', (writer, others) => {
    // Prepare: a known controller, another deployment, a status writer.
    const ds = withStatusWriters(
      ...others,
      statusEntry(OURS, '2026-01-01T00:00:05Z')
    );
    const pod = podCreatedBy(ds, writer, '2026-01-01T00:00:09Z');
    // Act / Assess
    expect(classifyForeignWrites(ds, [pod]).rival).toEqual([
      `pod ${pod.metadata?.name} created by ${writer}`,
    ]);
  });
});

describe('classifyForeignWrites with the cluster’s controller expected (native OnDelete mode)', () => {
  const KCM = CLUSTER_DAEMON_SET_CONTROLLER;
  const classify = (ds: DaemonSet, pods: Pod[] = []) =>
    classifyForeignWrites(ds, pods, OURS, KNOWN_DAEMON_SET_CONTROLLERS, KCM);

  it('takes the cluster controller’s status writes and pods as expected, never as a fight', () => {
    // Prepare: we never write status in this mode.
    const ds = withStatusWriters(statusEntry(KCM, '2026-01-01T00:00:10Z'));
    const pod = podCreatedBy(ds, KCM, '2026-01-01T00:00:20Z');
    // Act / Assess
    expect(classify(ds, [pod])).toEqual({ rival: [], stray: [] });
  });

  it('still reports a rival that writes status counters or creates pods after the cluster’s controller', () => {
    // Prepare
    const ds = withStatusWriters(
      statusEntry(KCM, '2026-01-01T00:00:10Z'),
      statusEntry('kruise-manager', '2026-01-01T00:00:11Z')
    );
    const pod = podCreatedBy(ds, 'kruise-manager', '2026-01-01T00:00:12Z');
    // Act / Assess
    expect(classify(ds, [pod]).rival).toEqual([
      'status counters written by kruise-manager at 2026-01-01T00:00:11Z',
      `pod ${pod.metadata?.name} created by kruise-manager`,
    ]);
  });
});

describe('isRivalController', () => {
  it('takes the known controllers it is given, so a mode expecting one can leave it out', () => {
    // Prepare
    const o = { ours: OURS, statusWriters: new Set<string>() };
    // Act / Assess
    expect(
      isRivalController('kube-controller-manager', {
        ...o,
        controllers: KNOWN_DAEMON_SET_CONTROLLERS,
      })
    ).toBe(true);
    expect(
      isRivalController('kube-controller-manager', { ...o, controllers: [] })
    ).toBe(false);
    expect(isRivalController(OURS, { ...o, controllers: [OURS] })).toBe(false);
  });
});
