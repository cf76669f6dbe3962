/**
 * syncDaemonSet with a spec Kruise's webhook would have refused but the
 * CRD's schema cannot (spec/kruise-ads.md §1.4 V1, V4): the reconciler
 * touches nothing, says why in an InvalidSpec condition and one Warning
 * event, and clears the condition once the spec is fixed.
 */
import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { INVALID_SPEC_CONDITION } from '#lib/reconcile/status.js';
import { makeNodes, newDaemonSet } from '../../../helpers/builders.js';
import {
  addDaemonSet,
  expectSync,
  newHarness,
  stored,
} from '../../../helpers/harness.js';

const CANARY_SELECTOR_ERROR =
  "spec.updateStrategy.rollingUpdate.selector: Invalid value: label requirement on \"zone\": for 'in', 'notin' operators, values set can't be empty";

/** An own-kind DaemonSet whose canary selector lacks its values. */
const invalidDaemonSet = (): DaemonSet => {
  const ds = newDaemonSet('ads');
  if (ds.spec) {
    ds.spec.updateStrategy = {
      type: 'RollingUpdate',
      rollingUpdate: {
        selector: { matchExpressions: [{ key: 'zone', operator: 'In' }] },
      },
    };
  }
  return ds;
};

const launch = () => {
  const h = newHarness();
  const ds = addDaemonSet(h, invalidDaemonSet());
  h.cluster.nodes = makeNodes(0, 3);
  return { h, ds };
};

describe('syncDaemonSet with an invalid spec', () => {
  it('creates nothing and reports an InvalidSpec condition and one Warning event', async () => {
    // Prepare
    const { h, ds } = launch();
    // Act
    const { error, result } = await expectSync(h, ds, {
      creates: 0,
      deletes: 0,
      events: 1,
    });
    // Assess
    expect(error).toBeUndefined();
    expect(result?.requeueAfterMs).toBeUndefined();
    expect(h.events.events).toEqual([
      {
        type: 'Warning',
        reason: 'InvalidSpec',
        message: `spec is invalid, nothing is reconciled until it is fixed: ${CANARY_SELECTOR_ERROR}`,
      },
    ]);
    expect(stored(h, ds).status?.conditions).toEqual([
      expect.objectContaining({
        type: INVALID_SPEC_CONDITION,
        status: 'True',
        reason: 'InvalidSpec',
        message: CANARY_SELECTOR_ERROR,
      }),
    ]);
    expect(h.cluster.revisions).toEqual([]);
  });

  it('writes and warns once while the spec stays the same', async () => {
    // Prepare
    const { h, ds } = launch();
    await expectSync(h, ds, { creates: 0, deletes: 0, events: 1 });
    const writes = h.cluster.statusUpdates.length;
    // Act
    await expectSync(h, ds, { creates: 0, deletes: 0, events: 0 });
    // Assess
    expect(h.cluster.statusUpdates.length).toBe(writes);
  });

  it('reconciles and drops the condition once the spec is fixed, keeping other conditions', async () => {
    // Prepare
    const { h, ds } = launch();
    await expectSync(h, ds, { creates: 0, deletes: 0, events: 1 });
    const current = stored(h, ds);
    current.status?.conditions?.unshift({ type: 'Other', status: 'True' });
    const [expression] =
      current.spec?.updateStrategy?.rollingUpdate?.selector?.matchExpressions ??
      [];
    if (expression) expression.values = ['a'];
    // Act
    await expectSync(h, ds, { creates: 3, deletes: 0, events: 0 });
    // Assess
    expect(stored(h, ds).status?.conditions).toEqual([
      { type: 'Other', status: 'True' },
    ]);
    expect(stored(h, ds).status?.desiredNumberScheduled).toBe(3);
  });

  it('retries a conflicting condition write once, on a fresh read', async () => {
    // Prepare
    const { h, ds } = launch();
    h.cluster.statusFailures = 1;
    // Act
    const { error } = await expectSync(h, ds, {
      creates: 0,
      deletes: 0,
      events: 1,
    });
    // Assess
    expect(error).toBeUndefined();
    expect(h.cluster.freshGets).toBe(1);
    expect(stored(h, ds).status?.conditions?.[0]?.type).toBe(
      INVALID_SPEC_CONDITION
    );
  });
});
