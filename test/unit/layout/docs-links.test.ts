/**
 * Every link from README.md or docs/ to a Markdown page lands: the page
 * exists, and its anchor names a heading of that page (GitHub's slugs).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** GitHub's anchor of a heading: lower case, punctuation dropped. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');

const anchorsOf = (file: string): Set<string> =>
  new Set(
    [...readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) =>
      slug(m[1] ?? '')
    )
  );

/** Returns each link of `file` to a page or anchor that is not there. */
const brokenLinks = (file: string): string[] =>
  [
    ...readFileSync(file, 'utf8').matchAll(/\]\(([\w./-]*\.md)?(#[^)\s]*)?\)/g),
  ].flatMap((m) => {
    const [link, page, anchor] = m;
    if (page === undefined && anchor === undefined) return [];
    const target = page ? path.join(path.dirname(file), page) : file;
    if (!existsSync(target)) return [`${file}: ${link}`];
    if (anchor && !anchorsOf(target).has(anchor.slice(1))) {
      return [`${file}: ${link}`];
    }
    return [];
  });

const pages = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f)),
];

describe('links between the docs', () => {
  it('land on a page and a heading that exist', () => {
    // Act
    const broken = pages.flatMap(brokenLinks);

    // Assess
    expect(broken).toEqual([]);
  });

  it('computes the anchor GitHub gives a heading', () => {
    // Assess
    expect(slug('One command at 100, 1,000 and 5,000 nodes (session 24)')).toBe(
      'one-command-at-100-1000-and-5000-nodes-session-24'
    );
    expect(slug('Why has a node no pod? explain and plan')).toBe(
      'why-has-a-node-no-pod-explain-and-plan'
    );
  });
});
