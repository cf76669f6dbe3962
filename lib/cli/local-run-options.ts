/**
 * `npm start`'s command line: its help, its options (which ownership mode,
 * which cluster) and the texts it answers a cluster that does not fit the
 * mode with. Pure: lib/wiring/local-run.ts acts on the result.
 */
import { parseArgs } from 'node:util';
import { OWNERSHIP_MODES } from '../cluster/record.js';
import type { Ownership } from '../ports/index.js';
import type { RivalController } from './clusters/check-ownership.js';

/** The text `npm start -- --help` prints. */
export const LOCAL_RUN_USAGE = `usage: npm start [-- [MODE] [--kubeconfig PATH [--context NAME] [--yes]] [--nodes N]]

MODE, which DaemonSets the product owns (default apps/v1):
  --ownership apps/v1  native DaemonSets; the cluster's own DaemonSet
                       controller must be off
  --ownership apps.dsr.dev/v1beta1, or --own-kind
                       the own kind, AdvancedDaemonSet, beside the
                       cluster's own DaemonSet controller (EKS, GKE, AKS)
  --ownership apps/v1+OnDelete, or --on-delete
                       native OnDelete DaemonSets that opt in with the
                       apps.dsr.dev/rollout annotation: the cluster's own
                       DaemonSet controller creates the pods, the product
                       rolls them out by deleting old ones

  (no option)          start the local control plane (5 KWOK nodes and a
                       sample default/node-agent of the mode) and reconcile
                       it; with --own-kind and --on-delete it also runs
                       kube-controller-manager's DaemonSet controller, as a
                       managed cluster does; $KUBECONFIG is never used
                       implicitly
  --kubeconfig PATH    reconcile the cluster of that kubeconfig instead
  --context NAME       its context (default: the current one)
  --yes                do not ask before reconciling that cluster
  --nodes N            simulated nodes of the local control plane (default 5)
  -h, --help           this text
`;

/** What `npm start` was asked to do. */
export interface LocalRunOptions {
  ownership: Ownership;
  /** The kubeconfig of a cluster to reconcile, else the local control plane. */
  kubeconfig?: string;
  context?: string;
  /** Simulated nodes of the local control plane. */
  nodes: number;
  yes: boolean;
}

/** The command line read: options, a request for help, or one error line. */
export type LocalRunArgs =
  | { kind: 'run'; options: LocalRunOptions }
  | { kind: 'help' }
  | { kind: 'error'; message: string };

/** The short flag of each mode that has one. */
const MODE_FLAGS = {
  'own-kind': 'apps.dsr.dev/v1beta1',
  'on-delete': 'apps/v1+OnDelete',
} as const satisfies Record<string, Ownership>;

const isOwnership = (v: string): v is Ownership =>
  (OWNERSHIP_MODES as readonly string[]).includes(v);

/**
 * Returns what `argv` (the arguments after `npm start --`) asks for; a
 * wrong option, an unknown mode or two different modes are one error line.
 *
 * @example
 * parseLocalRunArgs(['--own-kind']).kind; // 'run', ownership apps.dsr.dev/v1beta1
 */
export const parseLocalRunArgs = (argv: readonly string[]): LocalRunArgs => {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (e) {
    return { kind: 'error', message: (e as Error).message };
  }
  if (values.help) return { kind: 'help' };
  const modes: string[] = [];
  if (values.ownership !== undefined) {
    if (!isOwnership(values.ownership)) {
      return {
        kind: 'error',
        message: `--ownership must be one of ${OWNERSHIP_MODES.join(', ')}, not ${JSON.stringify(values.ownership)}`,
      };
    }
    modes.push(values.ownership);
  }
  for (const [flag, mode] of Object.entries(MODE_FLAGS)) {
    if (values[flag as keyof typeof MODE_FLAGS]) modes.push(mode);
  }
  const distinct = [...new Set(modes)];
  if (distinct.length > 1) {
    return {
      kind: 'error',
      message: `choose one mode, not ${distinct.join(' and ')}`,
    };
  }
  const nodes = Number(values.nodes);
  if (!Number.isInteger(nodes) || nodes < 1) {
    return {
      kind: 'error',
      message: `--nodes must be a whole number of at least 1, not ${JSON.stringify(values.nodes)}`,
    };
  }
  return {
    kind: 'run',
    options: {
      ownership: (distinct[0] as Ownership | undefined) ?? 'apps/v1',
      ...(values.kubeconfig !== undefined && { kubeconfig: values.kubeconfig }),
      ...(values.context !== undefined && { context: values.context }),
      nodes,
      yes: values.yes === true,
    },
  };
};

const parse = (argv: readonly string[]) =>
  parseArgs({
    args: [...argv],
    options: {
      ownership: { type: 'string' },
      'own-kind': { type: 'boolean' },
      'on-delete': { type: 'boolean' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      nodes: { type: 'string', default: '5' },
      yes: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });

/** Returns what a mode reconciles, for the question before a real cluster. */
export const whatItReconciles = (ownership: Ownership): string =>
  ownership === 'apps.dsr.dev/v1beta1'
    ? 'every AdvancedDaemonSet'
    : ownership === 'apps/v1+OnDelete'
      ? 'the rollouts of every OnDelete DaemonSet annotated apps.dsr.dev/rollout'
      : 'every DaemonSet';

/**
 * Returns whether a real cluster fits the mode, as `npm start` says it
 * before reconciling: a refusal where apps/v1 meets another active
 * DaemonSet controller (naming the modes that fit), a warning where it
 * cannot tell or where OnDelete finds no controller to create its pods.
 * The own kind fits whatever runs there.
 */
export const reviewLocalRunOwnership = (
  ownership: Ownership,
  rival: RivalController
): { refusal?: string; warning?: string } => {
  if (ownership === 'apps.dsr.dev/v1beta1') return {};
  if (rival.found === undefined) return { warning: rival.reason };
  if (ownership === 'apps/v1+OnDelete') {
    return rival.found
      ? {}
      : {
          warning:
            "no other DaemonSet controller was seen writing DaemonSet status; apps/v1+OnDelete needs the cluster's own controller on to create the pods",
        };
  }
  if (!rival.found) return {};
  return {
    refusal: `another DaemonSet controller is active here (${rival.manager} writes the status of ${rival.daemonSet}), and apps/v1 ownership would fight it; run with --ownership apps/v1+OnDelete (--on-delete) to roll out OnDelete DaemonSets that opt in with the apps.dsr.dev/rollout annotation, or --ownership apps.dsr.dev/v1beta1 (--own-kind) to reconcile AdvancedDaemonSets`,
  };
};
