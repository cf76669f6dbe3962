/**
 * The error the AWS-side CLIs (`dsr clusters`, `dsr fleet`) throw for bad
 * arguments.
 */
import { ReconcilerError } from '../errors.js';

/**
 * The command line is wrong: an unknown command or option, a missing or
 * invalid value. Lists every problem at once, so one run shows them all.
 */
export class CliUsageError extends ReconcilerError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[], options?: ErrorOptions) {
    super(problems.join('; '), options);
    this.name = 'CliUsageError';
    this.problems = problems;
  }
}
