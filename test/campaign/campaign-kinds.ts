/**
 * What differs between a run's two DaemonSet object kinds, for the
 * workload (an OnDelete run's are apps/v1 DaemonSets): where
 * the objects live, how they are patched (a custom resource takes no
 * strategic merge patch), and how a user rolls them back or restarts them
 * (`kubectl rollout` for apps/v1, the product's `kubectl dsr rollout` for
 * the own kind, which kubectl does not know).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ContentType } from '#lib/adapters/kube/client/kube-http-types.js';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import { advancedDaemonSetsPath } from '../testbed/advanced-daemonset-crd.js';
import type { DaemonSetKind } from './checker/kube-objects.js';
import { type CampaignKind, objectKindOf } from './run-kind.js';

const run = promisify(execFile);

/** How the workload reaches DaemonSets of one kind. */
export interface KindAccess {
  readonly kind: DaemonSetKind;
  readonly apiVersion: string;
  /** The namespace's collection, e.g. /apis/apps/v1/namespaces/ns/daemonsets. */
  collection(ns: string): string;
  /** How a template change is sent. */
  readonly templatePatch: ContentType;
  /** `rollout undo` or `rollout restart`, as a user types it; returns its output. */
  rollout(
    verb: 'undo' | 'restart',
    ns: string,
    name: string,
    kubeconfig: string
  ): Promise<string>;
}

/** apps/v1 DaemonSets, rolled with `kubectl` (the test bed's binary). */
const native = (kubectl: string): KindAccess => ({
  kind: 'DaemonSet',
  apiVersion: 'apps/v1',
  collection: (ns) => `/apis/apps/v1/namespaces/${ns}/daemonsets`,
  templatePatch: 'application/strategic-merge-patch+json',
  rollout: async (verb, ns, name, kubeconfig) => {
    const out = await run(
      kubectl,
      [
        '--kubeconfig',
        kubeconfig,
        '-n',
        ns,
        'rollout',
        verb,
        `daemonset/${name}`,
      ],
      { timeout: 30_000 }
    ).catch((e: { stderr?: string }) => ({
      stdout: `failed: ${e.stderr ?? e}`,
    }));
    return String(out.stdout).trim();
  },
});

/** AdvancedDaemonSets, rolled with the product's plugin, run in-process. */
const OWN: KindAccess = {
  kind: 'AdvancedDaemonSet',
  apiVersion: 'apps.dsr.dev/v1beta1',
  collection: advancedDaemonSetsPath,
  templatePatch: 'application/merge-patch+json',
  rollout: async (verb, ns, name, kubeconfig) => {
    const out = await runPlugin(
      ['rollout', verb, `advds/${name}`, '-n', ns, '--kubeconfig', kubeconfig],
      {
        open: (t) =>
          openAdvancedDaemonSets({ kubeconfig: t.kubeconfig ?? kubeconfig }),
        now: () => Date.now(),
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        write: () => undefined,
      }
    );
    return out.exitCode === 0
      ? out.stdout.trim()
      : `failed: ${out.stderr.trim()}`;
  },
};

/** Returns the access for `kind`; apps/v1 rolls with the `kubectl` binary given. */
export const kindAccess = (kind: CampaignKind, kubectl: string): KindAccess =>
  objectKindOf(kind) === 'DaemonSet' ? native(kubectl) : OWN;
