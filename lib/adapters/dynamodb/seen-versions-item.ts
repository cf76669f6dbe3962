/**
 * How a queue item (`q#<key>`) keeps what the adds of its key saw: the
 * highest resourceVersion per collection as a Number (`seenPods`,
 * `seenNodes`), and the pods to release as a string set (`releasePods`).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { SeenCollection, SeenVersions } from '../../ports/index.js';

/** The attribute holding the seen version of each collection. */
export const SEEN_ATTRIBUTE: Record<SeenCollection, string> = {
  pods: 'seenPods',
  nodes: 'seenNodes',
};

/** Returns the seen versions an item holds. */
export const seenVersionsOf = (
  item: Record<string, AttributeValue> | undefined
): SeenVersions => {
  const seen: SeenVersions = {};
  for (const [collection, attribute] of Object.entries(SEEN_ATTRIBUTE)) {
    // As stored: a JavaScript number would round versions past 2^53.
    const version = item?.[attribute]?.N;
    if (version !== undefined) seen[collection as SeenCollection] = version;
  }
  const releasePods = item?.releasePods?.SS;
  if (releasePods !== undefined) seen.releasePods = releasePods;
  return seen;
};
