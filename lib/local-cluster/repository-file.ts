/**
 * Finds a file that ships with the repository (scripts, stage definitions,
 * launchers) by its repository-relative path, searching upward from the
 * calling module: the same lookup serves the source tree (Vitest) and
 * bundles in `.build/` (`npm start`, the benchmarks).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Returns the absolute path of `repoPath` (e.g.
 * `lib/local-cluster/kwok-stages.yaml`), found from `moduleUrl` upward.
 */
export const repositoryFile = (moduleUrl: string, repoPath: string): string => {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const candidate = path.join(dir, repoPath);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(
        `${repoPath} not found above ${fileURLToPath(moduleUrl)}`
      );
    }
    dir = parent;
  }
};
