/**
 * resourceVersions compared as numbers. The API promises only opaque
 * strings, but every etcd-backed API server (and its own watch cache, which
 * serves `resourceVersionMatch=NotOlderThan`) uses etcd's revision, a
 * decimal integer. Anything else parses to undefined, and callers then fall
 * back to reads that need no comparison.
 */

/** Returns the resourceVersion as a number, or undefined when it is not one. */
export const parseResourceVersion = (
  rv: string | undefined
): bigint | undefined =>
  rv !== undefined && /^[0-9]{1,30}$/.test(rv) ? BigInt(rv) : undefined;

/** Returns the later of two resourceVersions (`b` when `a` is not a number). */
export const laterResourceVersion = (
  a: string | undefined,
  b: string
): string => {
  const pa = parseResourceVersion(a);
  const pb = parseResourceVersion(b);
  return pa !== undefined && (pb === undefined || pa > pb) ? (a as string) : b;
};
