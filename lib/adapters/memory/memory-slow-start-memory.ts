/**
 * SlowStartMemory in a Map, per container and cluster session: the least
 * recently used key goes past MAX_KEYS. Not DynamoDB: a proof lost with a
 * cold container only means upstream's slow start, at no operation's cost.
 */

import type { SlowStartMemory } from '../../ports/index.js';
import type { SlowStartProof } from '../../reconcile/slow-start.js';

/** Keys remembered per session (a DaemonSet's proof is a few bytes). */
const MAX_KEYS = 1_000;

/** Proven slow-start batches by DaemonSet key. */
export class MemorySlowStartMemory implements SlowStartMemory {
  readonly #proofs = new Map<string, SlowStartProof>();

  recall(key: string): SlowStartProof | undefined {
    return this.#proofs.get(key);
  }

  remember(key: string, proof: SlowStartProof | undefined): void {
    this.#proofs.delete(key);
    if (proof === undefined) return;
    this.#proofs.set(key, proof);
    if (this.#proofs.size > MAX_KEYS) {
      const oldest = this.#proofs.keys().next().value;
      if (oldest !== undefined) this.#proofs.delete(oldest);
    }
  }
}
