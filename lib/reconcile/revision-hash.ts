/**
 * Ports how upstream identifies a ControllerRevision
 * (pkg/controller/daemon/update.go: `getPatch`, `Match`, `maxRevision`; and
 * pkg/controller/controller_utils.go `ComputeHash`). The choices of
 * `dedupCurHistories` and `cleanupHistory` live in revision-history.ts, the
 * I/O of `constructHistory` in lib/sync/history.ts.
 *
 * Hash scheme: upstream hashes a go-spew dump of the Go struct, which cannot
 * be reproduced outside Go. We hash what identifies a template just as well:
 * FNV-1a/32 over the canonical revision data (`getPatch` bytes), followed, when
 * `status.collisionCount` is set, by that count as 8 bytes (little-endian
 * uint32 in the first four, as upstream appends it), rendered with upstream's
 * `rand.SafeEncodeString`. Names therefore look like upstream's
 * (`<ds>-<1–10 chars of bcdfghjklmnpqrstvwxz2456789>`) but differ in value;
 * that is harmless because revisions are matched by data, never by name, so a
 * revision written by kube-controller-manager is reused as it is.
 */
import { marshalGoJson, toWellFormed } from './k8s/go-json.js';
import type {
  ControllerRevision,
  DaemonSet,
  PodTemplateSpec,
} from './k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from './k8s/types.js';

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Returns upstream's `rand.SafeEncodeString(s)`: one alphabet character per
 * code point (`alphanums[rune % 27]`), padded with NUL bytes to the UTF-8
 * length of `s` — Go sizes the result in bytes but fills it per rune. Only
 * the ASCII digits of a hash reach it in practice.
 */
export const safeEncodeString = (s: string): string => {
  const text = toWellFormed(s);
  const runes = Array.from(
    text,
    (c) => SAFE_ALPHANUMS[(c.codePointAt(0) as number) % 27]
  );
  const padding = Buffer.byteLength(text, 'utf8') - runes.length;
  return runes.join('') + '\0'.repeat(padding);
};

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** Returns the FNV-1a 32-bit hash of `bytes`. */
export const fnv1a32 = (bytes: Uint8Array, seed = FNV32_OFFSET): number => {
  let h = seed;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
  }
  return h >>> 0;
};

/**
 * Returns the ControllerRevision data for the DaemonSet, byte for byte as
 * upstream's `getPatch`: `{"spec":{"template":{…,"$patch":"replace"}}}` with
 * Go's canonical JSON.
 */
export const getPatch = (ds: DaemonSet): string => {
  const template = (ds.spec?.template ?? {}) as Record<string, unknown>;
  return marshalGoJson({
    spec: { template: { ...template, $patch: 'replace' } },
  });
};

/**
 * Returns the pod template a revision stores (the inverse of getPatch), or
 * undefined when it holds none.
 */
export const revisionTemplate = (
  revision: ControllerRevision
): PodTemplateSpec | undefined => {
  const data = revision.data as
    | { spec?: { template?: Record<string, unknown> } }
    | undefined;
  if (data?.spec?.template === undefined) return undefined;
  const { $patch: _, ...template } = data.spec.template;
  return template as PodTemplateSpec;
};

/** Returns whether the revision stores the DaemonSet's current template. */
export const match = (ds: DaemonSet, revision: ControllerRevision): boolean =>
  revision.data !== undefined && marshalGoJson(revision.data) === getPatch(ds);

/**
 * Returns the revision hash for the DaemonSet's template and
 * `status.collisionCount` (see the module header for the scheme).
 */
export const computeHash = (ds: DaemonSet): string => {
  let hash = fnv1a32(Buffer.from(getPatch(ds), 'utf8'));
  const collisionCount = ds.status?.collisionCount;
  if (collisionCount !== undefined && collisionCount !== null) {
    const extra = new Uint8Array(8);
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv1a32(extra, hash);
  }
  return safeEncodeString(String(hash));
};

/** Returns the highest `revision` among the revisions (0 if none). */
export const maxRevision = (revisions: readonly ControllerRevision[]): number =>
  revisions.reduce((max, r) => Math.max(max, r.revision), 0);

/** Returns the revision's `controller-revision-hash` label, if any. */
export const revisionHash = (r: ControllerRevision): string | undefined =>
  r.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
