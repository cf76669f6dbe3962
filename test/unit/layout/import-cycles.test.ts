/**
 * No file-level import cycle in lib/ or functions/, type-only imports
 * included: a circle of files, even one closed by a type, is code cut out
 * of a file without its own vocabulary, and it blurs which file a reader
 * starts from.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importedFiles, sourceFiles } from '#test/helpers/source-modules.js';

type Graph = ReadonlyMap<string, readonly string[]>;

/**
 * Returns the import circles of `graph` (its strongly connected components
 * of more than one file, or a file importing itself), each sorted.
 */
const importCycles = (graph: Graph): string[][] => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) {
      cycles.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
};

const sourceGraph = (): Graph =>
  new Map(
    [...sourceFiles('lib'), ...sourceFiles('functions')].map((file) => [
      file,
      importedFiles(file).filter((target) => existsSync(target)),
    ])
  );

// Whole-tree scans: a loaded machine (coverage, a build) can take seconds.
describe('the import graph of lib/ and functions/', { timeout: 60_000 }, () => {
  it('has no file-level cycle, counting type-only imports', () => {
    // Prepare
    const graph = sourceGraph();

    // Act
    const cycles = importCycles(graph);

    // Assess
    expect(graph.size).toBeGreaterThan(200);
    expect(cycles).toEqual([]);
  });

  it('resolves relative, #lib/ and type-only imports to source files', () => {
    // Act
    const imported = importedFiles(
      'lib/worker/a.ts',
      [
        "import type { B } from './b.js';",
        "import { c } from '#lib/sync/c.js';",
        "export { d } from '../ports/index.js';",
        "import { e } from '@aws-sdk/client-sqs';",
        "import f from 'node:fs';",
      ].join('\n')
    );

    // Assess
    expect(imported).toEqual([
      'lib/worker/b.ts',
      'lib/sync/c.ts',
      'lib/ports/index.ts',
    ]);
  });

  it('catches a planted circle and a file importing itself', () => {
    // Prepare
    const graph: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);

    // Act
    const cycles = importCycles(graph);

    // Assess
    expect(cycles).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });
});
