/**
 * Splits a `kubectl dsr` command line into its verb, positionals and flag
 * values, with pflag's rules over node:util `parseArgs`: a bool flag is
 * `--x`, `-x` or `--x=true|false`; a flag the verb does not take is
 * cobra's `unknown flag: --x`. One parse for every verb, driven by the
 * table in plugin-verbs.ts.
 */
import { parseArgs } from 'node:util';
import { CliUsageError } from '../cli-usage-error.js';
import { BARE_DRY_RUN } from './dry-run.js';
import { FLAGS, type FlagName, STATE_FLAGS } from './plugin-flags.js';
import {
  acceptedFlagsOf,
  GROUPS,
  type VerbSpec,
  verbOf,
} from './plugin-verbs.js';

/** A command line, split. */
export type CommandLine =
  | { kind: 'help'; topic: readonly string[]; stream: 'stdout' | 'stderr' }
  | {
      kind: 'verb';
      verb: VerbSpec;
      /** The positionals after the verb's words. */
      args: string[];
      values: Partial<Record<FlagName, string>>;
    };

const names = Object.keys(FLAGS) as FlagName[];

/** Every flag as parseArgs takes it: bool flags arrive as `--x=true`. */
const PLUGIN_PARSE_OPTIONS = Object.fromEntries(
  names.map((n) => {
    const f: { type: 'string'; short?: string } = { type: 'string' };
    const short = (FLAGS[n] as { short?: string }).short;
    if (short !== undefined) f.short = short;
    return [n, f];
  })
);

/** Returns `argv` with bare bool flags and a bare --dry-run spelled out. */
const spellOut = (argv: readonly string[]): string[] => {
  const end = argv.indexOf('--');
  return argv.map((a, i) => {
    if (end >= 0 && i >= end) return a;
    if (a === '--dry-run') return BARE_DRY_RUN;
    const bool = names.find(
      (n) =>
        FLAGS[n].type === 'bool' &&
        (a === `--${n}` || a === `-${(FLAGS[n] as { short?: string }).short}`)
    );
    return bool === undefined ? a : `--${bool}=true`;
  });
};

/** The flags only plan and explain take, with the words that say so. */
const INSPECT_ONLY: readonly FlagName[] = ['ds', ...STATE_FLAGS];
const INSPECT_ONLY_PROBLEM =
  '--ds, -o, --cluster, --table, --stage, --region and --endpoint apply to plan and explain only';

/** Returns the problem of a flag `verb` does not take. */
const refusal = (name: string, raw: string): string => {
  if (INSPECT_ONLY.includes(name as FlagName)) return INSPECT_ONLY_PROBLEM;
  return raw.startsWith('--')
    ? `unknown flag: --${name}`
    : `unknown shorthand flag: '${raw.slice(1)}' in ${raw}`;
};

/** Returns the command line split; throws CliUsageError when it is wrong. */
export const splitCommandLine = (argv: readonly string[]): CommandLine => {
  const { tokens } = parseArgs({
    args: spellOut(argv),
    options: PLUGIN_PARSE_OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const positionals: string[] = [];
  const options: { name: string; raw: string; value?: string }[] = [];
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value);
    else if (t.kind === 'option') {
      options.push({
        name: t.name,
        raw: t.rawName,
        ...(t.value === undefined ? {} : { value: t.value }),
      });
    }
  }
  const help = options.some((o) => o.name === 'help' && o.value !== 'false');
  const [first, second] = positionals;
  if (first === undefined || first === 'help') {
    return { kind: 'help', topic: positionals.slice(1), stream: 'stdout' };
  }
  const group = (GROUPS as readonly string[]).includes(first);
  const verb = verbOf(first, second);
  if (verb === undefined) {
    if (group && (second === undefined || help)) {
      return {
        kind: 'help',
        topic: [first],
        stream: help ? 'stdout' : 'stderr',
      };
    }
    const words = group ? [first, second].join(' ') : first;
    throw new CliUsageError([`unknown command "${words}" for "kubectl dsr"`]);
  }
  if (help) return { kind: 'help', topic: verb.path, stream: 'stdout' };
  const allowed = acceptedFlagsOf(verb);
  const values: Partial<Record<FlagName, string>> = {};
  for (const o of options) {
    const name = o.name as FlagName;
    if (!allowed.includes(name) || !Object.hasOwn(FLAGS, name)) {
      throw new CliUsageError([refusal(o.name, o.raw)]);
    }
    if (o.value === undefined) {
      throw new CliUsageError([`flag needs an argument: ${o.raw}`]);
    }
    const spec = FLAGS[name] as { type: string; short?: string };
    if (spec.type === 'bool' && o.value !== 'true' && o.value !== 'false') {
      const both = spec.short ? `-${spec.short}, --${name}` : `--${name}`;
      throw new CliUsageError([
        `invalid argument "${o.value}" for "${both}" flag: strconv.ParseBool: parsing "${o.value}": invalid syntax`,
      ]);
    }
    values[name] = o.value;
  }
  return {
    kind: 'verb',
    verb,
    args: positionals.slice(verb.path.length),
    values,
  };
};
