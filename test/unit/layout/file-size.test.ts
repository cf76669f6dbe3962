/**
 * The size budget of STYLE.md §24 as a rule: no source file of lib/ or
 * functions/ grows past 300 lines; the one heading there gets split the way
 * upstream split daemon_controller.go.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 300;

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });

describe('the file size budget', () => {
  it(`keeps every file of lib/ and functions/ within ${MAX_LINES} lines`, () => {
    // Act
    const tooLong = [...sourceFiles('lib'), ...sourceFiles('functions')]
      .map((file) => ({
        file,
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter((f) => f.lines > MAX_LINES);
    // Assess
    expect(tooLong).toEqual([]);
  });
});
