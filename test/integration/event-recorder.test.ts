/**
 * The event recorder on a real API server: a burst of SuccessfulCreate
 * events on one DaemonSet leaves a few Event objects, combined and counted
 * as kube-controller-manager's recorder leaves them, marked as this
 * product's; recording returns before the writes, and flush waits for them.
 */
import { describe, expect, it } from 'vitest';
import { KubeEventRecorder } from '#lib/adapters/kube/kube-event-recorder.js';
import { COMBINED_PREFIX } from '#lib/policy/event-correlator.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { FakeLogger } from '#test/helpers/fakes/fake-logger.js';
import { useTestNamespace } from '#test/helpers/test-namespace.js';

interface Event {
  message: string;
  count: number;
  source: { component: string; host?: string };
  reportingComponent: string;
}

describe('event recorder on a real API server', () => {
  const t = useTestNamespace('events');
  const ds = (): DaemonSet => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: t.ns, uid: 'uid-agent' },
  });

  it('combines and counts a 100-pod burst of SuccessfulCreate into at most 25 Event writes', async () => {
    // Prepare
    const { http, ns } = t;
    const logger = new FakeLogger();
    const recorder = new KubeEventRecorder({ http, logger });
    // Act
    for (let i = 0; i < 100; i++) {
      await recorder.record(
        ds(),
        'Normal',
        'SuccessfulCreate',
        `Created pod: agent-${i}`
      );
    }
    const writtenBeforeFlush = recorder.writes;
    await recorder.flush();
    const { items } = await http.request<{ items: Event[] }>(
      'list events',
      'GET',
      `/api/v1/namespaces/${ns}/events`
    );
    // Assess
    expect(writtenBeforeFlush).toBeLessThan(25);
    expect(recorder.writes).toBe(25);
    expect(items).toHaveLength(10);
    const combined = items.find((e) => e.message.startsWith(COMBINED_PREFIX));
    expect(combined?.count).toBe(16);
    expect(
      items.every((e) => e.source.component === 'daemonset-controller')
    ).toBe(true);
    expect(
      items.every(
        (e) => e.reportingComponent === 'serverless-daemonset-reconciler'
      )
    ).toBe(true);
    expect(logger.lines).toEqual([]);
  });
});
