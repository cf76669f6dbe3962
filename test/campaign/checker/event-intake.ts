/**
 * Where the reflectors' events enter the checker: each is written to the
 * history when it arrives (with that wall-clock time), held and merged
 * across watches in resourceVersion order (event-order.ts), then applied to
 * the view and judged. A re-list becomes the changes it implies (objects
 * gone, changed, new), applied together and judged once, because the
 * instants between them never existed.
 */
import type { ClusterView } from './cluster-view.js';
import { EventOrder } from './event-order.js';
import { summarize } from './event-summary.js';
import type { History } from './history.js';
import type { KindObjects, Pod, WatchedKind } from './kube-objects.js';
import type { ReflectorSink } from './reflector.js';

/**
 * How long events are held for the cross-watch merge: on a loaded 2-core
 * machine a node event was seen arriving more than 500 ms after a later pod
 * event. The view (and so convergence) lags the cluster by this much.
 */
export const HOLD_MS = 2_000;

type AnyObject = KindObjects[WatchedKind];

type Held =
  | { kind: WatchedKind; type: string; obj: AnyObject }
  | { kind: WatchedKind; snapshot: AnyObject[] };

/** What the intake feeds. */
export interface IntakeDeps {
  view: ClusterView;
  history: History;
  now: () => number;
  /** Called before the view applies a pod change. */
  onPodChange(
    before: Pod | undefined,
    after: Pod | undefined,
    atMs: number
  ): void;
  /** Called after the view applied a pod change. */
  afterPodChange(name: string, after: Pod | undefined, atMs: number): void;
  /** Judges the instant after an event (or a re-list) was applied. */
  judge(atMs: number): void;
}

/** Records, orders and applies watch events. */
export class EventIntake {
  readonly #order = new EventOrder<Held>(HOLD_MS);
  /** Last recorded summary per object, so repeats are not recorded. */
  readonly #lastState = new Map<string, string>();

  constructor(private readonly deps: IntakeDeps) {}

  /** Returns the sink a reflector of `kind` feeds. */
  sinkFor(kind: WatchedKind): ReflectorSink<AnyObject> {
    return {
      event: (type, obj) => {
        const atMs = this.deps.now();
        this.#record(kind, type, obj, atMs, '');
        this.#order.push(obj.metadata.resourceVersion, atMs, {
          kind,
          type,
          obj,
        });
      },
      snapshot: (items, resourceVersion) => {
        const atMs = this.deps.now();
        this.#note(
          `listed ${items.length} ${kind}s at version ${resourceVersion}`,
          atMs
        );
        this.#order.push(resourceVersion, atMs, { kind, snapshot: items });
      },
      note: (text) => this.#note(text, this.deps.now()),
    };
  }

  /** Applies and judges the held events that are due (all when `flush`). */
  release(nowMs: number, flush: boolean): void {
    for (const { receivedAtMs, payload } of this.#order.release(nowMs, flush)) {
      if ('snapshot' in payload) {
        this.#applySnapshot(payload.kind, payload.snapshot, receivedAtMs);
      } else {
        this.#apply(payload.kind, payload.type, payload.obj, receivedAtMs);
      }
      this.deps.judge(receivedAtMs);
    }
  }

  #applySnapshot(kind: WatchedKind, items: AnyObject[], atMs: number): void {
    const store = this.#store(kind);
    const listed = new Map(items.map((i) => [i.metadata.name, i]));
    for (const [name, old] of [...store]) {
      if (listed.has(name)) continue;
      this.#record(kind, 'DELETED', old, atMs, 'list: ');
      this.#apply(kind, 'DELETED', old, atMs);
    }
    for (const item of items) {
      const old = store.get(item.metadata.name);
      if (old?.metadata.resourceVersion === item.metadata.resourceVersion)
        continue;
      const type = old ? 'MODIFIED' : 'ADDED';
      this.#record(kind, type, item, atMs, 'list: ');
      this.#apply(kind, type, item, atMs);
    }
  }

  #apply(kind: WatchedKind, type: string, obj: AnyObject, atMs: number): void {
    const store = this.#store(kind);
    const name = obj.metadata.name;
    const before = store.get(name);
    // A late event behind a re-list that already showed a newer version.
    if (before && isOlder(obj, before)) return;
    const after = type === 'DELETED' ? undefined : obj;
    if (kind === 'pod') {
      this.deps.onPodChange(
        before as Pod | undefined,
        after as Pod | undefined,
        atMs
      );
    }
    if (after) store.set(name, after);
    else store.delete(name);
    if (kind === 'pod')
      this.deps.afterPodChange(name, after as Pod | undefined, atMs);
  }

  #store(kind: WatchedKind): Map<string, AnyObject> {
    return this.deps.view.store(kind) as Map<string, AnyObject>;
  }

  #record(
    kind: WatchedKind,
    type: string,
    obj: AnyObject,
    atMs: number,
    prefix: string
  ): void {
    const { state, subjects } = summarize(kind, obj);
    const key = `${kind}/${obj.metadata.name}`;
    if (type === 'DELETED') this.#lastState.delete(key);
    else if (this.#lastState.get(key) === state) return;
    else this.#lastState.set(key, state);
    this.deps.history.add({
      atMs,
      kind: 'event',
      text: `${prefix}${type} ${state} rv=${obj.metadata.resourceVersion ?? '-'}`,
      subjects,
    });
  }

  #note(text: string, atMs: number): void {
    this.deps.history.add({ atMs, kind: 'note', text, subjects: [] });
  }
}

/** Whether `obj` is an older version than `stored` (numeric versions only). */
const isOlder = (obj: AnyObject, stored: AnyObject): boolean => {
  const a = obj.metadata.resourceVersion ?? '';
  const b = stored.metadata.resourceVersion ?? '';
  return /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) < BigInt(b);
};
