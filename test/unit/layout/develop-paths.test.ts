/**
 * docs/develop.md's traces and tables name files and folders of the
 * repository; each must exist, so the page cannot drift from the tree.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOTS = ['lib/', 'test/', 'functions/', 'infra/', 'docs/'];

/** Returns the repository paths a Markdown text names in backticks. */
const namedPaths = (text: string): string[] => [
  ...new Set(
    [...text.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1] ?? '')
      .filter((p) => ROOTS.some((root) => p.startsWith(root)))
  ),
];

describe('docs/develop.md', () => {
  it('names only paths that exist', () => {
    // Prepare
    const named = namedPaths(readFileSync('docs/develop.md', 'utf8'));

    // Act
    const missing = named.filter((p) => !existsSync(p));

    // Assess
    expect(named.length).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });

  it('catches a planted path that does not exist', () => {
    // Act
    const named = namedPaths('see `lib/sync/no-such-file.ts` and `npm test`');

    // Assess
    expect(named.filter((p) => !existsSync(p))).toEqual([
      'lib/sync/no-such-file.ts',
    ]);
  });
});
