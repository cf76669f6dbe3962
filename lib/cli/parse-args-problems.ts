/**
 * What node:util `parseArgs` refused, in one short line per problem instead
 * of its own messages ("Unknown option '-o'. To specify a positional
 * argument starting with a '-', place it at the end of the command after
 * '--', as in '-- "-o"'), with the option the operator probably meant; and
 * the strict parse the AWS-side CLIs (`dsr clusters`, `dsr fleet`) share.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliUsageError } from './cli-usage-error.js';
import { type CliOutput, printOutcome, usageFailure } from './render-output.js';

/** The options of a command line, as parseArgs takes them. */
export type OptionSpecs = Readonly<
  Record<string, { type: 'string' | 'boolean'; short?: string }>
>;

/**
 * Returns the edit distance of two short strings, a swap of two adjacent
 * letters counting as one edit (optimal string alignment): `--tabel` is
 * one edit from `--table`.
 */
const distance = (a: string, b: string): number => {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) =>
      i === 0 ? j : j === 0 ? i : 0
    )
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        at(i - 1, j) + 1,
        at(i, j - 1) + 1,
        at(i - 1, j - 1) + cost
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
};

/** Returns ` (did you mean --x?)` for a near miss of a known option, or ''. */
const suggestion = (name: string, options: OptionSpecs): string => {
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of Object.keys(options)) {
    const d = distance(name, known);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : ` (did you mean --${best}?)`;
};

/** Whether parseArgs takes `value` for an option rather than a value. */
const isOptionLike = (value: string | undefined): value is string =>
  value !== undefined && value.length > 1 && value.startsWith('-');

/** Whether `arg` names one of `options` (`--table`, `-o`, `--json=x`). */
const isKnownOption = (arg: string, options: OptionSpecs): boolean => {
  const name = arg.replace(/^--?/, '').split('=')[0] ?? '';
  return arg.startsWith('--')
    ? Object.hasOwn(options, name)
    : Object.values(options).some((o) => o.short === name[0]);
};

/** Parses leniently: every token, whatever the options are. */
const lenientParse = (argv: readonly string[], options: OptionSpecs) =>
  parseArgs({
    args: [...argv],
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });

/**
 * Returns what is wrong with `argv`, one line per problem, for a command
 * line a strict parseArgs refused; `fallback` (its own message) when no
 * token explains it.
 */
export const parseArgsProblems = (
  argv: readonly string[],
  options: OptionSpecs,
  fallback: string
): string[] => {
  const problems: string[] = [];
  for (const token of lenientParse(argv, options).tokens) {
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    const raw = token.rawName;
    if (spec === undefined) {
      // A short option is one letter: any other one is "near" it.
      const hint = raw.startsWith('--') ? suggestion(token.name, options) : '';
      problems.push(`unknown option ${raw}${hint}`);
    } else if (spec.type === 'boolean' && token.value !== undefined) {
      problems.push(`${raw} takes no value`);
    } else if (spec.type === 'string' && token.value === undefined) {
      problems.push(`${raw} needs a value`);
    } else if (
      spec.type === 'string' &&
      !token.inlineValue &&
      isOptionLike(token.value)
    ) {
      // parseArgs takes no separate value that looks like an option.
      problems.push(
        isKnownOption(token.value, options)
          ? `${raw} needs a value`
          : `${raw} needs a value; write ${raw}=${token.value} for one that starts with "-"`
      );
    }
  }
  return problems.length > 0 ? problems : [fallback.split('\n')[0] ?? fallback];
};

/** What a command line asks for, read even when it does not parse. */
export interface InvocationHints {
  /** The first positional argument (the command's name), if any. */
  first?: string;
  /** Whether `--json` or `-o json` was given (or `-o yaml`). */
  output: 'text' | 'json' | 'yaml';
}

/**
 * Returns the command name and output format `argv` asks for, without
 * refusing anything: a refused command line still gets its errors in the
 * format asked for and a pointer to the right help.
 */
export const invocationHints = (
  argv: readonly string[],
  options: OptionSpecs
): InvocationHints => {
  const { values, positionals } = lenientParse(argv, options);
  const output =
    values.output === 'json' || values.json === true
      ? 'json'
      : values.output === 'yaml'
        ? 'yaml'
        : 'text';
  const [first] = positionals;
  return { ...(first === undefined ? {} : { first }), output };
};

/**
 * Returns the options and positionals of `argv` (strict: an unknown option
 * or a missing value is refused); a refusal becomes one CliUsageError with
 * a line per problem.
 *
 * @example
 * const { values, positionals } = parseCommandLine(argv, OPTIONS);
 */
export const parseCommandLine = <
  O extends NonNullable<ParseArgsConfig['options']>,
>(
  argv: readonly string[],
  options: O
) => {
  try {
    return parseArgs({
      args: [...argv],
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (cause) {
    // parseArgs names the offending option; no argument is a secret.
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new CliUsageError(parseArgsProblems(argv, options, message), {
      cause,
    });
  }
};

/**
 * Returns `name` when it is one of `names` (the CLI's commands, called
 * `what`); a missing or unknown one is a CliUsageError listing them.
 */
export const oneOfCommands = <N extends string>(
  name: string | undefined,
  names: readonly N[],
  what: string
): N => {
  if (names.includes(name as N)) return name as N;
  const list = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  throw new CliUsageError([
    name === undefined
      ? `give a ${what}: ${list}`
      : `unknown ${what} ${JSON.stringify(name)}: use ${list}`,
  ]);
};

/** Records each option given that the command `name` does not take. */
export const checkOptionsApply = (
  name: string,
  given: Readonly<Record<string, unknown>>,
  allowed: readonly string[],
  problems: string[]
): void => {
  for (const option of Object.keys(given)) {
    if (!allowed.includes(option)) {
      problems.push(`--${option} does not apply to ${name}`);
    }
  }
};

/**
 * Returns the output of a command line a parser refused (`problems`):
 * each problem, and where the help is (`helpOf` the first positional
 * argument, the command's name when it is one), as JSON or YAML when
 * `argv` asks for it.
 */
export const refusedCommandLine = (
  argv: readonly string[],
  options: OptionSpecs,
  problems: readonly string[],
  helpOf: (first: string | undefined) => string
): CliOutput => {
  const hints = invocationHints(argv, options);
  const first = hints.first === 'help' ? undefined : hints.first;
  return printOutcome(usageFailure(problems, helpOf(first)), hints.output);
};

/**
 * Returns what help the command line asks for: `{ topic }` for `help X`
 * or `X --help`, `{}` for `help` or `--help`, undefined for none; more
 * words after the topic are a CliUsageError.
 */
export const helpAskedFor = (
  positionals: readonly string[],
  helpFlag: boolean | undefined
): { topic?: string } | undefined => {
  const [first, ...rest] = positionals;
  if (first !== 'help' && !helpFlag) return undefined;
  const [topic, ...more] = first === 'help' ? rest : positionals;
  if (more.length > 0) {
    throw new CliUsageError([`unexpected argument(s): ${more.join(' ')}`]);
  }
  return topic === undefined ? {} : { topic };
};
