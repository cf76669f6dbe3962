/**
 * A LabelSelector as the `labelSelector` query parameter, so the API server
 * sends only the pods a DaemonSet selects instead of its whole namespace
 * (kube-system often holds thousands). The API server validated the selector
 * when the DaemonSet was written; anything unexpected yields undefined and
 * the caller lists without a filter.
 */
import type { LabelSelector } from '../../../reconcile/k8s/types.js';

/** Returns the selector in Kubernetes' query syntax, or undefined. */
export const labelSelectorQuery = (
  selector: LabelSelector | undefined
): string | undefined => {
  const parts = Object.entries(selector?.matchLabels ?? {}).map(
    ([k, v]) => `${k}=${v}`
  );
  for (const e of selector?.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
    else return undefined;
  }
  return parts.length > 0 ? parts.join(',') : undefined;
};
