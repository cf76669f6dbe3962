/**
 * The size budget of STYLE.md §24 as a rule: a source file of lib/ or
 * functions/ past 300 lines is named as a warning, for a split along its
 * concerns when the next change comes; past 400 lines the test fails. The
 * split follows a seam, the way upstream split daemon_controller.go into
 * update.go and util/, not the line count.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '#test/helpers/source-modules.js';

/** Past this, a file is named for a split. */
const WARN_LINES = 300;
/** Past this, the test fails. */
const MAX_LINES = 400;

interface Sized {
  file: string;
  lines: number;
}

/** Returns the files past `warnLines` and those past `maxLines`. */
const overBudget = (
  files: readonly Sized[],
  warnLines: number,
  maxLines: number
): { warn: Sized[]; fail: Sized[] } => ({
  warn: files.filter((f) => f.lines > warnLines && f.lines <= maxLines),
  fail: files.filter((f) => f.lines > maxLines),
});

describe('the file size budget', () => {
  it(`warns past ${WARN_LINES} lines and keeps every file of lib/ and functions/ within ${MAX_LINES}`, () => {
    // Prepare
    const files = [...sourceFiles('lib'), ...sourceFiles('functions')].map(
      (file) => ({
        file,
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      })
    );

    // Act
    const { warn, fail } = overBudget(files, WARN_LINES, MAX_LINES);

    // Assess
    for (const { file, lines } of warn) {
      console.warn(
        `${file}: ${lines} lines, past ${WARN_LINES}: split it along a concern`
      );
    }
    expect(fail).toEqual([]);
  });

  it('tells a file past the warning from one past the limit', () => {
    // Prepare
    const files = [
      { file: 'a.ts', lines: 300 },
      { file: 'b.ts', lines: 301 },
      { file: 'c.ts', lines: 400 },
      { file: 'd.ts', lines: 401 },
    ];

    // Act
    const { warn, fail } = overBudget(files, WARN_LINES, MAX_LINES);

    // Assess
    expect(warn.map((f) => f.file)).toEqual(['b.ts', 'c.ts']);
    expect(fail.map((f) => f.file)).toEqual(['d.ts']);
  });
});
