/**
 * Imported first by the command's entries, so that an old Node.js stops
 * with one line and exit code 1 before any bundled library is evaluated.
 */
import { nodeVersionProblem } from '../lib/cli/node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`error: ${problem}\n`);
  process.exit(1);
}
