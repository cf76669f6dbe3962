/**
 * The checker's four watches (nodes, and the run namespace's DaemonSets of
 * the run's kind,
 * ControllerRevisions and pods) and their health: a watch down for longer
 * than WATCH_OUTAGE_LIMIT_MS leaves a hole in what the checker saw, so the
 * run cannot be called green and is reported void (checker-watch-failed).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  type DaemonSetKind,
  daemonSetsPath,
  type KindObjects,
  type WatchedKind,
} from './kube-objects.js';
import { Reflector, type ReflectorSink } from './reflector.js';
import type { Violation } from './violation.js';

/** A watch down longer than this voids the run. */
export const WATCH_OUTAGE_LIMIT_MS = 30_000;

type AnyObject = KindObjects[WatchedKind];

/** Starts, watches over and stops the reflectors. */
export class WatchSet {
  readonly #reflectors = new Map<string, Reflector<AnyObject>>();
  /** Paths whose current outage was reported already. */
  readonly #reported = new Set<string>();

  constructor(
    kc: KubeConfig,
    namespace: string,
    sinkFor: (kind: WatchedKind) => ReflectorSink<AnyObject>,
    private readonly now: () => number,
    daemonSetKind: DaemonSetKind = 'DaemonSet'
  ) {
    const ns = encodeURIComponent(namespace);
    const paths: [WatchedKind, string][] = [
      ['node', '/api/v1/nodes'],
      ['daemonSet', daemonSetsPath(daemonSetKind, ns)],
      ['revision', `/apis/apps/v1/namespaces/${ns}/controllerrevisions`],
      ['pod', `/api/v1/namespaces/${ns}/pods`],
    ];
    for (const [kind, path] of paths) {
      this.#reflectors.set(path, new Reflector(kc, path, sinkFor(kind), now));
    }
  }

  /** Lists everything, then waits until every watch runs. */
  async start(): Promise<void> {
    await Promise.all([...this.#reflectors.values()].map((r) => r.start()));
    const started = this.now();
    while (this.downPaths().length > 0) {
      if (this.now() - started > WATCH_OUTAGE_LIMIT_MS) {
        throw new Error(`watches not running: ${this.downPaths().join(', ')}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Returns the paths without a running watch. */
  downPaths(): string[] {
    return [...this.#reflectors]
      .filter(([, r]) => r.downSinceMs !== undefined)
      .map(([path]) => path);
  }

  /** Returns a violation for each outage that just passed the limit. */
  checkOutages(nowMs: number): Violation[] {
    const found: Violation[] = [];
    for (const [path, r] of this.#reflectors) {
      const down = r.downSinceMs;
      if (down === undefined) {
        this.#reported.delete(path);
        continue;
      }
      if (nowMs - down <= WATCH_OUTAGE_LIMIT_MS || this.#reported.has(path)) {
        continue;
      }
      this.#reported.add(path);
      found.push({
        invariant: 'checker-watch-failed',
        atMs: nowMs,
        detail: `the checker's watch of ${path} has been down for ${nowMs - down} ms; the run is void`,
      });
    }
    return found;
  }

  /** Stops every watch. */
  async stop(): Promise<void> {
    await Promise.all([...this.#reflectors.values()].map((r) => r.stop()));
  }
}
