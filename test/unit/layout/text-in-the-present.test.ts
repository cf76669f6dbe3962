/**
 * The docs and the code's comments describe the present: README.md,
 * docs/, lib/ and functions/ carry no label of a past work period, no
 * finding id and no campaign seed number. History
 * lives in git, in CHANGELOG.md and in the one dated results page
 * (docs/results.md); a regression test may name the seed it replays.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The one page of dated results, where past runs are kept. */
const DATED_PAGE = path.join('docs', 'results.md');

const HISTORY_LABELS: readonly { what: string; pattern: RegExp }[] = [
  { what: 'work-period label', pattern: /\bsessions? \d+/i },
  { what: 'finding id', pattern: /\b[FN]\d{1,2}\b/ },
  // `--seed 300` in a command is an example, not a reference to a finding.
  { what: 'seed number', pattern: /(?<!-)\bseeds? \d{2,}/i },
];

/** Returns each line of `text` that carries a history label, named. */
const historyLabels = (file: string, text: string): string[] =>
  text
    .split('\n')
    .flatMap((line, i) =>
      HISTORY_LABELS.filter(({ pattern }) => pattern.test(line)).map(
        ({ what }) => `${file}:${i + 1}: ${what}: ${line.trim().slice(0, 100)}`
      )
    );

const filesEndingIn = (dir: string, ext: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return filesEndingIn(full, ext);
    return full.endsWith(ext) ? [full] : [];
  });

describe('text in the present', () => {
  it('finds no history label in README.md and docs/ outside the dated results page', () => {
    // Act
    const found = ['README.md', ...filesEndingIn('docs', '.md')]
      .filter((file) => file !== DATED_PAGE)
      .flatMap((file) => historyLabels(file, readFileSync(file, 'utf8')));

    // Assess
    expect(found).toEqual([]);
  });

  it('finds no history label in the comments of lib/ and functions/', () => {
    // Act
    const found = [
      ...filesEndingIn('lib', '.ts'),
      ...filesEndingIn('functions', '.ts'),
    ].flatMap((file) => historyLabels(file, readFileSync(file, 'utf8')));

    // Assess
    expect(found).toEqual([]);
  });

  it.each([
    ['Measured in session 25 on commit abc.', 'work-period label'],
    ['Residue of F10 (see the audit).', 'finding id'],
    ['Fixed after campaign seed 230612.', 'seed number'],
  ])('catches a planted label: %s', (line, what) => {
    // Act
    const found = historyLabels('planted.md', `intro\n${line}\n`);

    // Assess
    expect(found).toEqual([`planted.md:2: ${what}: ${line}`]);
  });

  it('lets a command line give a seed', () => {
    // Act
    const found = historyLabels('ok.md', 'npm run campaign -- --seed 300\n');

    // Assess
    expect(found).toEqual([]);
  });
});
