/**
 * The sample `default/node-agent` the local run creates, one per ownership
 * mode: a native DaemonSet (apps/v1), an AdvancedDaemonSet (the own kind),
 * or a native OnDelete DaemonSet that opts in with the apps.dsr.dev/rollout
 * annotation (apps/v1+OnDelete).
 */
import { paths } from '../adapters/kube/paths.js';
import type { Ownership } from '../ports/index.js';
import { ownedKind } from '../reconcile/k8s/daemon-set-kind.js';
import { ROLLOUT_ANNOTATION } from '../reconcile/on-delete/rollout-annotation.js';

/** The sample's name, in the default namespace. */
export const SAMPLE_NAME = 'node-agent';

/** The sample of one mode: how the run names it, where it goes, its body. */
export interface SampleDaemonSet {
  /** E.g. `sample AdvancedDaemonSet default/node-agent`. */
  what: string;
  path: string;
  body: object;
}

/** Returns the sample `default/node-agent` of `ownership`. */
export const sampleDaemonSet = (ownership: Ownership): SampleDaemonSet => {
  const kind = ownedKind(ownership);
  const onDelete = ownership === 'apps/v1+OnDelete';
  const template = {
    metadata: { labels: { app: SAMPLE_NAME } },
    spec: {
      containers: [{ name: 'agent', image: 'registry.local/node-agent:1' }],
    },
  };
  return {
    what: `sample ${onDelete ? 'OnDelete ' : ''}${kind.kind} default/${SAMPLE_NAME}`,
    path: paths.daemonSets(kind, 'default'),
    body: {
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      metadata: {
        name: SAMPLE_NAME,
        // Rolled out one node at a time, by deleting its old pod.
        ...(onDelete && {
          annotations: {
            [ROLLOUT_ANNOTATION]: JSON.stringify({ maxUnavailable: 1 }),
          },
        }),
      },
      spec: {
        selector: { matchLabels: { app: SAMPLE_NAME } },
        ...(onDelete && { updateStrategy: { type: 'OnDelete' } }),
        template,
      },
    },
  };
};
