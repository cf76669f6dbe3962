/** In-process FailedPodBackoffStore for the local run and tests. */
import type { FailedPodBackoffStore } from '../../ports/index.js';
import type { BackoffEntry } from '../../reconcile/backoff-policy.js';

/** Failed-pod backoff entries kept in a Map. */
export class MemoryBackoffStore implements FailedPodBackoffStore {
  readonly entries = new Map<string, BackoffEntry>();

  async get(id: string): Promise<BackoffEntry | undefined> {
    return this.entries.get(id);
  }

  async put(id: string, entry: BackoffEntry): Promise<void> {
    this.entries.set(id, entry);
  }
}
