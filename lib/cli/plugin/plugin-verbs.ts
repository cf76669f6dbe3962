/**
 * Every verb of `kubectl dsr` and every flag it takes, in one table: the
 * parser (parse-plugin-args.ts), each verb's help (plugin-help.ts) and the
 * shell completion (completion.ts) read it, so a flag a verb does not list
 * is refused as kubectl refuses it (`unknown flag: --x`).
 */
import { type FlagName, GLOBAL_FLAGS, STATE_FLAGS } from './plugin-flags.js';

/** One verb: its words, what it does, how it is called, its own flags. */
export interface VerbSpec {
  path: readonly [string] | readonly [string, string];
  /** One line: what the verb does. */
  summary: string;
  /** More, on the verb's own page. */
  description?: string;
  usage: string;
  examples: readonly string[];
  flags: readonly FlagName[];
  /** Flags taken but not shown: the verb's own check refuses them in its words. */
  accepts?: readonly FlagName[];
}

const target = '(advds/NAME | NAME)';
/** Status, history, pause and resume also take an OnDelete-mode DaemonSet. */
const eitherTarget = '(advds/NAME | ds/NAME | NAME)';

/** Every verb, in the order help lists them. */
export const VERBS: readonly VerbSpec[] = [
  {
    path: ['get'],
    summary: 'List AdvancedDaemonSets, with their pods per revision.',
    usage:
      'kubectl dsr get [advds/NAME | NAME] [-l SELECTOR] [-o json|yaml|wide|name] [-w] [-A]',
    examples: [
      '# List the AdvancedDaemonSets of the namespace, with image columns',
      'kubectl dsr get -o wide',
      '# Print the names of those labelled app=agent, then every change',
      'kubectl dsr get -l app=agent -o name -w',
    ],
    flags: ['output', 'selector', 'watch', 'all-namespaces'],
  },
  {
    path: ['rollout', 'status'],
    summary: "Show the status of the rollout, waiting until it's done.",
    usage: `kubectl dsr rollout status ${eitherTarget} [--watch=false] [--timeout=5m]`,
    examples: [
      '# Wait for the rollout of node-agent',
      'kubectl dsr rollout status advds/node-agent --timeout=5m',
      '# An apps/v1 OnDelete DaemonSet the product rolls out (apps.dsr.dev/rollout)',
      'kubectl dsr rollout status ds/node-agent',
    ],
    flags: ['watch', 'timeout'],
  },
  {
    path: ['rollout', 'history'],
    summary: 'List the revisions, or show the pod template of one.',
    usage: `kubectl dsr rollout history ${eitherTarget} [--revision=N]`,
    examples: [
      '# Show revision 2 of node-agent',
      'kubectl dsr rollout history advds/node-agent --revision=2',
    ],
    flags: ['revision'],
  },
  {
    path: ['rollout', 'undo'],
    summary: 'Roll back to the previous revision (or to --to-revision).',
    usage: `kubectl dsr rollout undo ${target} [--to-revision=N] [--dry-run=client|server]`,
    examples: [
      '# Roll node-agent back to revision 1',
      'kubectl dsr rollout undo advds/node-agent --to-revision=1',
    ],
    flags: ['to-revision', 'dry-run'],
  },
  ...(['pause', 'resume', 'restart'] as const).map(
    (v): VerbSpec => ({
      path: ['rollout', v],
      summary: {
        pause: 'Pause the rollout; no pod is replaced until it is resumed.',
        resume: 'Resume a paused rollout.',
        restart: 'Restart every pod, a node at a time, as a rollout.',
      }[v],
      usage: `kubectl dsr rollout ${v} ${v === 'restart' ? target : eitherTarget} [--dry-run=client|server]`,
      examples: [`kubectl dsr rollout ${v} advds/node-agent`],
      flags: ['dry-run'],
    })
  ),
  {
    path: ['set', 'partition'],
    summary: 'Keep N nodes (or N% of them) on the old revision.',
    usage: `kubectl dsr set partition ${target} N|N% [--dry-run=client|server]`,
    examples: [
      '# Update all but 2 nodes',
      'kubectl dsr set partition advds/node-agent 2',
    ],
    flags: ['dry-run'],
  },
  {
    path: ['set', 'image'],
    summary:
      "Update the image of a container of the pod template ('*' for all).",
    usage: `kubectl dsr set image ${target} CONTAINER=IMAGE ... [--dry-run=client|server]`,
    examples: [
      '# Run agent:2 in the container named agent',
      'kubectl dsr set image advds/node-agent agent=registry.example/agent:2',
    ],
    flags: ['dry-run'],
  },
  {
    path: ['plan'],
    summary: 'Show what the next sync would do. Writes nothing.',
    description:
      "Creates, deletes, surge nodes, update budget left, status changes, events and requeue, from a dry run of the reconciler's own sync. Needs only read access; takes apps/v1 DaemonSets (ds/NAME) and AdvancedDaemonSets (advds/NAME) alike. With --cluster ID and --stage (or --table) it also reads the reconcilers' expectations and failed-pod backoff.",
    usage:
      'kubectl dsr plan (ds/NAME | advds/NAME | NAMESPACE/NAME | NAME) [-o json|yaml] [--cluster ID --stage NAME [--region R] | --table NAME [--endpoint URL]]',
    examples: [
      'kubectl dsr plan kube-system/node-agent',
      "# Also read the reconcilers' expectations and failed-pod backoff",
      'kubectl dsr plan advds/node-agent --cluster prod-eu --stage prod',
    ],
    flags: ['output', ...STATE_FLAGS],
    accepts: ['ds'],
  },
  {
    path: ['explain'],
    summary: 'Say why a node has, or has no, daemon pod. Writes nothing.',
    description:
      'Names the predicate that decides it (nodeName, nodeSelector, affinity term, taint), failed-pod backoff, partition, canary selector and pause, and what the next sync would do on the node.',
    usage:
      'kubectl dsr explain node NODE --ds (ds/NAME | advds/NAME | NAMESPACE/NAME) [-o json|yaml] [--cluster ID --stage NAME]',
    examples: ['kubectl dsr explain node gpu-1 --ds kube-system/node-agent'],
    flags: ['ds', 'output', ...STATE_FLAGS],
  },
  {
    path: ['migrate'],
    summary:
      'Move a DaemonSet to the own kind (or back) without restarting a pod.',
    description:
      'Moves an apps/v1 or Kruise DaemonSet to an AdvancedDaemonSet, or an AdvancedDaemonSet back to apps/v1. Every write is tried with dryRun=All first, a copy is saved under ~/.kube/dsr-migrate before the source is deleted, and a re-run resumes a migration that stopped half-way.',
    usage:
      'kubectl dsr migrate (ds/NAME | daemonsets.apps.kruise.io/NAME | advds/NAME) [--dry-run=client|server] [--timeout=60s]',
    examples: ['kubectl dsr migrate ds/node-agent -n kube-system'],
    flags: ['dry-run', 'timeout'],
  },
  {
    path: ['version'],
    summary: 'Print the version of the plugin.',
    usage: 'kubectl dsr version',
    examples: ['kubectl dsr version'],
    flags: [],
  },
  {
    path: ['completion'],
    summary:
      'Print a shell completion script (verbs and flags) for bash or zsh.',
    usage: 'kubectl dsr completion bash|zsh',
    examples: [
      '# Complete `kubectl dsr` in bash (kubectl asks kubectl_complete-dsr)',
      'kubectl dsr completion bash > ~/.local/bin/kubectl_complete-dsr && chmod +x ~/.local/bin/kubectl_complete-dsr',
      '# Complete `dsr` in zsh',
      'source <(dsr completion zsh)',
    ],
    flags: [],
  },
];

/** The verb groups, whose words alone name no verb. */
export const GROUPS = ['rollout', 'set'] as const;

/** Returns the verb `words` name (one or two words), or undefined. */
export const verbOf = (
  first: string | undefined,
  second: string | undefined
): VerbSpec | undefined =>
  VERBS.find((v) =>
    v.path.length === 1
      ? v.path[0] === first
      : v.path[0] === first && v.path[1] === second
  );

/** Returns the flags `verb` takes: its own, then the global ones. */
export const flagsOf = (verb: VerbSpec): FlagName[] => [
  ...verb.flags,
  ...GLOBAL_FLAGS,
];

/** Returns every flag the parser lets through to `verb`. */
export const acceptedFlagsOf = (verb: VerbSpec): FlagName[] => [
  ...flagsOf(verb),
  ...(verb.accepts ?? []),
];
