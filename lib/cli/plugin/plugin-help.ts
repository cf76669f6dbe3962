/**
 * The help pages of `kubectl dsr`, in kubectl's layout (summary, Examples,
 * Options, Usage), one per verb and one per verb group, all from the verb
 * table (plugin-verbs.ts), so a page never lists a flag its verb refuses.
 */
import { FLAGS, type FlagName, GLOBAL_FLAGS } from './plugin-flags.js';
import { GROUPS, VERBS, type VerbSpec, verbOf } from './plugin-verbs.js';

/** What the plugin page says first. */
const ABOUT = `Manage AdvancedDaemonSets (apps.dsr.dev) the way kubectl manages DaemonSets,
ask why a node has no daemon pod, and what the next sync would do.
Installed as both \`dsr\` and \`kubectl dsr\`.`;

const GROUP_SUMMARY: Record<(typeof GROUPS)[number], string> = {
  rollout: 'Manage the rollout of an AdvancedDaemonSet.',
  set: 'Set fields of an AdvancedDaemonSet: its partition, or the image of a container.',
};

/** Returns kubectl's option lines of `flags`: `    -o, --output='':`, then the text. */
const optionLines = (flags: readonly FlagName[]): string[] =>
  [...flags].sort().flatMap((n) => {
    const f = FLAGS[n] as { short?: string; shown: string; help: string };
    const names = f.short ? `-${f.short}, --${n}` : `--${n}`;
    return [`    ${names}=${f.shown}:`, `\t${f.help}`, ''];
  });

/** Returns rows as two columns, the first padded to the widest. */
const columns = (rows: readonly (readonly [string, string])[]): string[] => {
  const width = Math.max(...rows.map(([a]) => a.length)) + 3;
  return rows.map(([a, b]) => `  ${a.padEnd(width)}${b}`);
};

/** Returns the page of one verb. */
const verbPage = (v: VerbSpec): string =>
  [
    v.summary,
    ...(v.description === undefined ? [] : ['', v.description]),
    '',
    'Examples:',
    ...v.examples.map((e) => `  ${e}`),
    '',
    ...(v.flags.length > 0 ? ['Options:', ...optionLines(v.flags)] : []),
    'Global options:',
    ...optionLines(GLOBAL_FLAGS),
    'Usage:',
    `  ${v.usage} [options]`,
    '',
    'Use "kubectl dsr --help" for the list of verbs.',
    '',
  ].join('\n');

/** Returns the page of a verb group (`rollout`, `set`). */
const groupPage = (group: (typeof GROUPS)[number]): string =>
  [
    GROUP_SUMMARY[group],
    '',
    'Available Commands:',
    ...columns(
      VERBS.filter((v) => v.path[0] === group).map(
        (v) => [v.path[1] ?? '', v.summary] as const
      )
    ),
    '',
    'Usage:',
    `  kubectl dsr ${group} SUBCOMMAND [options]`,
    '',
    `Use "kubectl dsr ${group} SUBCOMMAND --help" for more about a command.`,
    '',
  ].join('\n');

/** The plugin's own page: every verb, and the flags every verb takes. */
export const PLUGIN_USAGE = [
  ABOUT,
  '',
  'Commands:',
  ...columns([
    ...VERBS.map((v) => [v.path.join(' '), v.summary] as const),
    [
      'clusters',
      "The reconcilers' cluster registry in AWS ('dsr clusters --help').",
    ] as const,
    [
      'fleet',
      "Fleet rollouts across the registered clusters ('dsr fleet --help').",
    ] as const,
  ]),
  '',
  'Global options:',
  ...optionLines(GLOBAL_FLAGS),
  'Usage:',
  '  kubectl dsr COMMAND [options]',
  '',
  'Use "kubectl dsr COMMAND --help" for more about a command.',
  '',
].join('\n');

/**
 * Returns the page of `topic` (a verb's words, a group, or none: the
 * plugin's page); undefined when it names no verb.
 */
export const helpPage = (topic: readonly string[]): string | undefined => {
  const [first, second] = topic;
  if (first === undefined) return PLUGIN_USAGE;
  const verb = verbOf(first, second);
  if (verb !== undefined && topic.length === verb.path.length) {
    return verbPage(verb);
  }
  const group = GROUPS.find((g) => g === first);
  return group !== undefined && second === undefined
    ? groupPage(group)
    : undefined;
};
