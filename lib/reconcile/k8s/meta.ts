/**
 * Accessors for object metadata. Wire objects declare every field optional;
 * the API server always sets name and uid on stored objects, so absent
 * fields read as '' here, in one place.
 */
import type { KubeObject } from './types.js';

/** Returns `metadata.name` ('' if absent). */
export const nameOf = (obj: KubeObject): string => obj.metadata?.name ?? '';

/** Returns `metadata.uid` ('' if absent). */
export const uidOf = (obj: KubeObject): string => obj.metadata?.uid ?? '';

/** Returns one label's value ('' if absent). */
export const labelOf = (obj: KubeObject, key: string): string =>
  obj.metadata?.labels?.[key] ?? '';

/**
 * Returns `ms` as Kubernetes writes times (RFC 3339, whole seconds, UTC),
 * e.g. `2026-11-23T22:00:00Z`.
 */
export const rfc3339 = (ms: number): string =>
  new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Returns whether `v` is a JSON object (not null, not a list). */
export const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns whether the object is being deleted (a deletionTimestamp is set). */
export const isDeleting = (obj: KubeObject): boolean =>
  obj.metadata?.deletionTimestamp !== undefined &&
  obj.metadata.deletionTimestamp !== null;
