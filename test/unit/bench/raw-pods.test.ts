/**
 * The raw contender never has more than its limit of requests in flight,
 * and starts the waiting ones in order as others finish, failures too.
 */
import { describe, expect, it } from 'vitest';
import { inFlightLimit, podBody } from '../../bench/raw-pods.js';

describe('inFlightLimit', () => {
  it('runs at most `limit` tasks at once, in the order they came', async () => {
    // Prepare
    const limit = inFlightLimit(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running++;
      most = Math.max(most, running);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (i === 1) throw new Error('task 1 fails');
      return i;
    };
    // Act
    const results = await Promise.allSettled(
      [0, 1, 2, 3, 4].map((i) => limit(task(i)))
    );
    // Assess
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
  });
});

describe('podBody', () => {
  it('binds an agent pod of the image to the node', () => {
    // Act
    const pod = JSON.parse(podBody('n1', 'agent:2'));
    // Assess
    expect(pod.spec).toEqual({
      nodeName: 'n1',
      containers: [{ name: 'c', image: 'agent:2' }],
    });
    expect(pod.metadata.labels).toEqual({ app: 'agent' });
  });

  it('leaves a pod placed through kube-scheduler unbound, with the DaemonSet controller’s node affinity for its node', () => {
    // Act
    const pod = JSON.parse(podBody('n1', 'agent:2', 'scheduler'));
    // Assess
    expect(pod.spec.nodeName).toBeUndefined();
    expect(
      pod.spec.affinity.nodeAffinity
        .requiredDuringSchedulingIgnoredDuringExecution
    ).toEqual({
      nodeSelectorTerms: [
        {
          matchFields: [
            { key: 'metadata.name', operator: 'In', values: ['n1'] },
          ],
        },
      ],
    });
  });
});
