/**
 * One meaning per name in lib/: no two files export the same name (a
 * type, class, function or const), and no file keeps a private declaration
 * under a name another file exports. A reader who meets a name, or an
 * editor's auto-import, then finds the one thing it means.
 */
import { describe, expect, it } from 'vitest';
import {
  declaredExports,
  sourceFiles,
  topLevelNames,
} from '#test/helpers/source-modules.js';

/**
 * Private twins that are the same predicate as the exported one, kept
 * because their room takes no edits but renames right now.
 */
const SAME_MEANING: readonly string[] = [];

type Module = { file: string; names: { name: string; exported: boolean }[] };

/** Returns each name that two or more modules export, with its files. */
const sharedExports = (modules: readonly Module[]): string[] => {
  const files = new Map<string, string[]>();
  for (const { file, names } of modules) {
    for (const { name, exported } of names) {
      if (exported) files.set(name, [...(files.get(name) ?? []), file]);
    }
  }
  return [...files]
    .filter(([, where]) => new Set(where).size > 1)
    .map(([name, where]) => `${name}: ${[...new Set(where)].join(', ')}`);
};

/** Returns each private declaration named like another module's export. */
const privateTwins = (modules: readonly Module[]): string[] => {
  const exporters = new Map<string, string>();
  for (const { file, names } of modules) {
    for (const { name, exported } of names) {
      if (exported) exporters.set(name, file);
    }
  }
  return modules.flatMap(({ file, names }) =>
    names
      .filter(({ name, exported }) => {
        const other = exporters.get(name);
        return !exported && other !== undefined && other !== file;
      })
      .filter(({ name }) => !SAME_MEANING.includes(name))
      .map(
        ({ name }) => `${name}: ${file} (exported by ${exporters.get(name)})`
      )
  );
};

const libModules = (): Module[] =>
  sourceFiles('lib').map((file) => ({ file, names: topLevelNames(file) }));

// Whole-tree scans: a loaded machine (coverage, a build) can take seconds.
describe('exported names in lib/', { timeout: 60_000 }, () => {
  it('gives each exported name to one file only', () => {
    // Act
    const shared = sharedExports(libModules());

    // Assess
    expect(shared).toEqual([]);
  });

  it('keeps no private declaration under another file’s exported name', () => {
    // Act
    const twins = privateTwins(libModules());

    // Assess
    expect(twins).toEqual([]);
  });

  it('catches planted duplicates of every declaration kind', () => {
    // Prepare
    const planted = (file: string, text: string): Module => ({
      file,
      names: topLevelNames(file, text),
    });
    const a = planted(
      'lib/a.ts',
      [
        'export type EventType = "A";',
        'export interface Run { a: number }',
        'export class LostError extends Error {}',
        'export function sleep() {}',
        'export const { limit } = { limit: 1 };',
        'const helper = 1;',
      ].join('\n')
    );
    const b = planted(
      'lib/b.ts',
      [
        'export type EventType = "B";',
        'export type Run = { b: number };',
        'export class LostError extends Error {}',
        'export const sleep = () => undefined;',
        'export const limit = 2;',
        'export const helper = 2;',
        'interface Unique { c: number }',
      ].join('\n')
    );

    // Act
    const shared = sharedExports([a, b]);
    const twins = privateTwins([a, b]);

    // Assess
    expect(shared).toEqual([
      'EventType: lib/a.ts, lib/b.ts',
      'Run: lib/a.ts, lib/b.ts',
      'LostError: lib/a.ts, lib/b.ts',
      'sleep: lib/a.ts, lib/b.ts',
      'limit: lib/a.ts, lib/b.ts',
    ]);
    expect(twins).toEqual(['helper: lib/a.ts (exported by lib/b.ts)']);
  });

  it('counts declarations only, not re-exports of another file’s names', () => {
    // Act
    const names = declaredExports(
      'lib/index.ts',
      "export * from './a.js';\nexport { sleep } from './b.js';"
    );

    // Assess
    expect(names).toEqual([]);
  });
});
