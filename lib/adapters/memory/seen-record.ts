/**
 * What the adds of one key saw, kept in memory by both in-process queue
 * adapters: the highest resourceVersion per collection (only ever raised)
 * and the pods to release, until a sync forgets them.
 */
import { laterResourceVersion } from '../../policy/resource-version.js';
import type {
  SeenCollection,
  SeenVersion,
  SeenVersions,
} from '../../ports/index.js';

/** One key's seen versions and pods to release. */
export class SeenRecord {
  readonly #versions: Partial<Record<SeenCollection, string>> = {};
  readonly #releasePods = new Set<string>();

  /** Raises the collection's version and notes the pod to release, if any. */
  raise({ collection, resourceVersion, releasePod }: SeenVersion): void {
    this.#versions[collection] = laterResourceVersion(
      this.#versions[collection],
      resourceVersion
    );
    if (releasePod !== undefined) this.#releasePods.add(releasePod);
  }

  /** Returns a copy, as `beginSync` hands it out. */
  snapshot(): SeenVersions {
    const seen: SeenVersions = { ...this.#versions };
    if (this.#releasePods.size > 0) seen.releasePods = [...this.#releasePods];
    return seen;
  }

  /** Forgets pods a sync has looked at. */
  forgetReleases(pods: readonly string[]): void {
    for (const pod of pods) this.#releasePods.delete(pod);
  }
}
