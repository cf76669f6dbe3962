/**
 * The DaemonSet's current revision, found the way upstream's
 * constructHistory/Match does (pkg/controller/daemon/update.go): among the
 * ControllerRevisions the DaemonSet controls, the one whose data is the
 * patch `{"spec":{"template":{...,"$patch":"replace"}}}` of the current
 * spec.template (the newest revision number if several match, as
 * dedupCurHistories keeps). Upstream compares bytes; the checker compares
 * canonical JSON so key order does not matter, and treats a null field as
 * absent (Go writes `"creationTimestamp":null`, which decodes the same).
 */
import { type ClusterView, controllerUid } from './cluster-view.js';
import type { ControllerRevision, DaemonSet } from './kube-objects.js';
import { REVISION_HASH_LABEL } from './kube-objects.js';

/** Returns JSON with sorted keys, null fields and `$patch` dropped. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(canonical(value));

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field === null || key === '$patch') continue;
    out[key] = canonical(field);
  }
  return out;
};

/** Returns the template a revision stores, or undefined if malformed. */
const storedTemplate = (cr: ControllerRevision): unknown => {
  const data =
    typeof cr.data === 'string' ? safeParse(cr.data) : (cr.data as unknown);
  return (data as { spec?: { template?: unknown } } | undefined)?.spec
    ?.template;
};

const safeParse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Returns the revision holding the DaemonSet's current template, if any. */
export const currentRevision = (
  view: ClusterView,
  ds: DaemonSet
): ControllerRevision | undefined => {
  const want = canonicalJson(ds.spec.template);
  return [...view.revisions.values()]
    .filter(
      (cr) =>
        controllerUid(cr.metadata) === ds.metadata.uid &&
        canonicalJson(storedTemplate(cr)) === want
    )
    .sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0))[0];
};

/** Returns the hash label that pods of the revision carry. */
export const revisionHash = (cr: ControllerRevision): string | undefined =>
  cr.metadata.labels?.[REVISION_HASH_LABEL];
