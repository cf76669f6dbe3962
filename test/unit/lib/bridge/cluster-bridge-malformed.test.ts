/**
 * One unreadable object of each kind the bridge watches (a malformed pod or
 * revision its handler throws on, a node or DaemonSet event that does not
 * decode) is skipped, logged once at error, and counted; the events of the
 * other objects still wake their DaemonSets.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runClusterBridge } from '#lib/bridge/cluster-bridge.js';
import { UnreadableEventError } from '#lib/errors.js';
import type {
  ClusterWatch,
  WatchEvent,
  WatchedResource,
} from '#lib/ports/index.js';
import type { KubeObject } from '#lib/reconcile/k8s/types.js';
import {
  newDaemonSet,
  newNode,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const good = newDaemonSet('good');
const late = newDaemonSet('late');
const withRv = <T extends KubeObject>(obj: T, rv: string): T => ({
  ...obj,
  metadata: { ...obj.metadata, resourceVersion: rv },
});
const ownedByAMap = (name: string, rv: string): KubeObject => ({
  metadata: {
    name,
    namespace: 'default',
    resourceVersion: rv,
    labels: simpleDaemonSetLabel,
    ownerReferences: { a: 1 } as never,
  },
});
const revision = (name: string, rv: string): KubeObject => ({
  metadata: {
    name,
    namespace: 'default',
    resourceVersion: rv,
    labels: simpleDaemonSetLabel,
  },
});

/** What a kind's watch brings from `rv`: events, then a throw (optional). */
type Stream = (rv: string) => { events: KubeObject[]; fails?: boolean };

const cases: {
  kind: WatchedResource;
  stream: Stream;
  relisted?: KubeObject[];
  wakes: string;
  skipped: string;
}[] = [
  {
    kind: 'pods',
    stream: (rv) => ({
      events: [
        ownedByAMap('bad-pod', '11'),
        withRv(newPod('pod-', 'n1', simpleDaemonSetLabel, good), '12'),
      ].filter((o) => Number(o.metadata?.resourceVersion) > Number(rv)),
    }),
    wakes: 'c1/default/good',
    skipped: 'default/bad-pod@11',
  },
  {
    kind: 'revisions',
    stream: (rv) => ({
      events: [ownedByAMap('bad-rev', '11'), revision('rev', '12')].filter(
        (o) => Number(o.metadata?.resourceVersion) > Number(rv)
      ),
    }),
    wakes: 'c1/default/good',
    skipped: 'default/bad-rev@11',
  },
  {
    kind: 'nodes',
    stream: (rv) => ({ events: [], fails: rv === '10' }),
    relisted: [withRv(newNode('n2'), '20')],
    wakes: 'c1/default/good',
    skipped: 'after 10',
  },
  {
    kind: 'daemonSets',
    stream: (rv) => ({ events: [], fails: rv === '10' }),
    relisted: [good, late],
    wakes: 'c1/default/late',
    skipped: 'after 10',
  },
];

/** A cluster whose `kind` watch follows `stream`; the others are quiet. */
const clusterWatch = (c: (typeof cases)[number]): ClusterWatch => {
  let listed = 0;
  return {
    list: async <T extends KubeObject>(resource: WatchedResource) => {
      // DaemonSets are listed at the start too; nodes only on a relist.
      const relist =
        resource === c.kind && (resource !== 'daemonSets' || listed++ > 0);
      const items =
        relist && c.relisted
          ? c.relisted
          : resource === 'daemonSets'
            ? [good]
            : [];
      return { items: items as T[], resourceVersion: relist ? '20' : '10' };
    },
    currentVersion: async () => '10',
    watch: <T extends KubeObject>(
      resource: WatchedResource,
      rv: string,
      _timeout: number,
      signal: AbortSignal
    ): AsyncIterable<WatchEvent<T>> =>
      (async function* () {
        if (resource === c.kind) {
          const { events, fails } = c.stream(rv);
          for (const object of events) {
            yield { type: 'ADDED', object: object as T };
          }
          if (fails) throw new UnreadableEventError(`watch ${resource}`);
        }
        await new Promise((r) => signal.addEventListener('abort', r));
      })(),
  };
};

describe('runClusterBridge with one unreadable object', () => {
  it.each(cases)(
    'skips the $kind event once and wakes the others',
    async (c) => {
      // Prepare: a former run stored versions and a node index.
      const leases = new MemoryBridgeLeaseStore({ clock: systemClock });
      await leases.acquire('c1', 'h0', 600);
      const at = {
        ...{ daemonSets: '10', pods: '10', nodes: '10', revisions: '10' },
        // Resynced a moment ago: no start-up resync wakes anyone.
        resyncAtMs: String(Date.now()),
      };
      await leases.checkpoint('c1', 'h0', at, 600);
      await leases.release('c1', 'h0');
      const nodeIndex = new MemoryNodeIndexStore();
      await nodeIndex.save('c1', new Map([['n1', {}]]), 'h0', '10');
      const queued: string[] = [];
      const logger = new FakeLogger();
      // Act
      const report = await runClusterBridge(
        {
          cluster: 'c1',
          ownerKind: 'DaemonSet',
          watch: clusterWatch(c),
          queue: {
            add: async (key: string) => void queued.push(key),
            addAfter: async () => {},
            addAnew: async () => {},
          },
          expectations: new MemoryExpectationsStore({ clock: systemClock }),
          leases,
          nodeIndex,
          holder: 'h1',
          clock: systemClock,
          logger,
        },
        {
          mode: 'watch',
          deadlineMs: Date.now() + 1_500,
          resyncEveryMs: 3_600_000,
          leaseTtlMs: 600,
          watchRetryMs: 5,
        }
      );
      // Assess
      const errors = logger.lines.filter((l) => l.level === 'error');
      expect(errors).toHaveLength(1);
      expect(JSON.stringify(errors[0]?.fields)).toContain(
        c.skipped.replace('after ', '')
      );
      expect(report).toMatchObject({ outcome: 'done', skippedEvents: 1 });
      expect(queued).toContain(c.wakes);
    }
  );
});
