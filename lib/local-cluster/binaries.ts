/**
 * Finds the test bed's binaries: `DSR_TESTBIN_DIR` when set, else the
 * version-keyed cache that lib/local-cluster/build-binaries.sh fills (building
 * them from the Go module proxy on first use).
 */

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repositoryFile } from './repository-file.js';

const SCRIPT = repositoryFile(
  import.meta.url,
  'lib/local-cluster/build-binaries.sh'
);

/** Returns the directory holding the test bed binaries, building if needed. */
export const ensureBinaries = (): string => {
  const out = execFileSync('bash', [SCRIPT], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  const dir = out.trim().split('\n').at(-1);
  if (!dir) throw new Error('build-binaries.sh printed no directory');
  return dir;
};

/** Throws naming the first test-bed binary missing from `binDir`. */
export const requireBinaries = (binDir: string): void => {
  for (const b of [
    'etcd',
    'kube-apiserver',
    'kube-scheduler',
    'kube-controller-manager',
    'kwok',
  ]) {
    if (!existsSync(path.join(binDir, b))) {
      throw new Error(
        `test bed: ${b} missing in ${binDir}; run lib/local-cluster/build-binaries.sh`
      );
    }
  }
};
