import { describe, expect, it } from 'vitest';
import { formatDaemonSetTable, kubectlAge } from '#lib/cli/daemon-set-table.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const S = 1_000;
const H = 3_600 * S;
const D = 24 * H;

describe('kubectlAge (apimachinery HumanDuration)', () => {
  it.each([
    [-5 * S, '<invalid>'],
    [-0.5 * S, '0s'],
    [45 * S, '45s'],
    [119 * S, '119s'],
    [180 * S, '3m'],
    [192 * S, '3m12s'],
    [17 * 60 * S, '17m'],
    [179 * 60 * S, '179m'],
    [5 * H, '5h'],
    [5 * H + 3 * 60 * S, '5h3m'],
    [30 * H, '30h'],
    [2 * D, '2d'],
    [2 * D + 4 * H, '2d4h'],
    [12 * D, '12d'],
    [3 * 365 * D, '3y'],
    [3 * 365 * D + 14 * D, '3y14d'],
    [9 * 365 * D, '9y'],
  ])('shows an age of %d ms as %s', (ms, want) => {
    expect(kubectlAge(new Date(T0).toISOString(), T0 + ms)).toBe(want);
  });

  it('shows an unreadable timestamp as <unknown>', () => {
    expect(kubectlAge(undefined, T0)).toBe('<unknown>');
  });
});

describe('formatDaemonSetTable', () => {
  const ds = (namespace: string, name: string): DaemonSet => ({
    metadata: {
      namespace,
      name,
      creationTimestamp: new Date(T0).toISOString(),
    },
    spec: {
      selector: {},
      template: { spec: { containers: [], nodeSelector: { type: 'kwok' } } },
    },
    status: {
      desiredNumberScheduled: 5,
      currentNumberScheduled: 5,
      numberReady: 4,
      updatedNumberScheduled: 3,
      numberAvailable: 4,
      numberMisscheduled: 0,
    },
  });

  it('prints kubectl get ds columns, with NAMESPACE only across namespaces', () => {
    // Act
    const one = formatDaemonSetTable([ds('default', 'agent')], T0 + 65 * S);
    const two = formatDaemonSetTable(
      [
        ds('default', 'agent'),
        { ...ds('ops', 'log'), status: undefined, spec: undefined },
      ],
      T0
    );
    // Assess
    expect(one).toEqual([
      'NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE',
      'agent   5         5         4       3            4           type=kwok       65s',
    ]);
    expect(two[0]).toMatch(/^NAMESPACE\s+NAME\s+DESIRED/);
    expect(two[2]).toMatch(/^ops\s+log\s+0\s+0\s+0\s+0\s+0\s+<none>\s+0s$/);
  });

  it('says so when there is nothing', () => {
    expect(formatDaemonSetTable([], T0)).toEqual(['No resources found']);
  });
});
