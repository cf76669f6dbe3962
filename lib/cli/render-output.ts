/**
 * How a run of the AWS-side CLIs (`dsr clusters`, `dsr fleet`) prints what
 * it has to say in the format asked for: lines for people, or one JSON or
 * YAML document, failures included, so a script that asked for `-o json`
 * never has to parse `error: …` text.
 */
import { dump } from 'js-yaml';
import { describeError } from './describe-error.js';

/**
 * How a command prints: lines for people (`text`; `wide` adds columns to
 * a list), or one document (`json`, `yaml`), errors included.
 */
export type OutputFormat = 'text' | 'wide' | 'json' | 'yaml';

/** What one run prints, and how it exits. */
export interface CliOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A command's outcome: human lines, the document, the exit code. */
export interface Outcome {
  exitCode: number;
  lines: string[];
  /** What `-o json` and `-o yaml` print instead of the lines. */
  json: unknown;
  /** Print on stderr: the command could not do its work. */
  error?: boolean;
}

/** The exit code of a run with a bad command line. */
export const USAGE_EXIT_CODE = 2;

/** Returns the outcome of a command that could not do its work. */
export const failed = (message: string): Outcome => ({
  exitCode: 1,
  lines: [`error: ${message}`],
  json: { error: message },
  error: true,
});

/** Returns `doc` as text: `-o yaml`'s YAML, or `-o json`'s indented JSON. */
const serialize = (doc: unknown, format: 'json' | 'yaml'): string => {
  const text = JSON.stringify(doc, null, 2);
  // The YAML carries exactly the JSON's data (no undefined, Dates as text).
  return format === 'json'
    ? `${text}\n`
    : dump(JSON.parse(text), { lineWidth: -1 });
};

/** Returns what `outcome` prints in `format`. */
export const renderOutcome = (
  outcome: Outcome,
  format: OutputFormat
): string =>
  format === 'json' || format === 'yaml'
    ? serialize(outcome.json, format)
    : outcome.lines.map((line) => `${line}\n`).join('');

/** Returns what `outcome` prints in `format`, on stdout or (errors) stderr. */
export const printOutcome = (
  outcome: Outcome,
  format: OutputFormat
): CliOutput => {
  const text = renderOutcome(outcome, format);
  return {
    exitCode: outcome.exitCode,
    stdout: outcome.error ? '' : text,
    stderr: outcome.error ? text : '',
  };
};

/**
 * Returns the outcome of an error a command threw: every aggregated error
 * on its own line (and in `errors`).
 */
export const failedWith = (e: unknown): Outcome => {
  if (e instanceof AggregateError) {
    const errors = e.errors.map(describeError);
    return {
      exitCode: 1,
      lines: [`error: ${e.message}`, ...errors.map((x) => `  ${x}`)],
      json: { error: e.message, errors },
      error: true,
    };
  }
  return failed(describeError(e));
};

/**
 * Returns the outcome of a bad command line (exit code 2): each problem on
 * its own line, then where the help is (`help`, e.g. `npx dsr clusters
 * add --help`).
 */
export const usageFailure = (
  problems: readonly string[],
  help: string
): Outcome => ({
  exitCode: USAGE_EXIT_CODE,
  lines: [...problems.map((p) => `error: ${p}`), `See '${help}'.`],
  json: { error: problems.join('; '), problems, help },
  error: true,
});
