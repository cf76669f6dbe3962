/**
 * The Node.js release the bundled command needs: `@kubernetes/client-node`
 * 2.x, and so `dsr`, run only on Node 22.19 or newer (package.json
 * `engines`). Older releases fail deep inside a minified bundle instead.
 */

/** The oldest Node.js release `dsr` runs on. */
export const REQUIRED_NODE = '22.19.0';

const parts = (version: string): number[] =>
  version
    .replace(/^v/, '')
    .split('.')
    .map((part) => Number.parseInt(part, 10) || 0);

/**
 * Returns the one-line error for a Node.js release older than
 * {@link REQUIRED_NODE}, or undefined when `running` is new enough.
 *
 * @example
 * nodeVersionProblem('20.20.2');
 * // 'dsr needs Node.js 22.19.0 or newer; this is Node.js 20.20.2'
 */
export const nodeVersionProblem = (running: string): string | undefined => {
  const have = parts(running);
  const need = parts(REQUIRED_NODE);
  for (let i = 0; i < need.length; i += 1) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a > b) return undefined;
    if (a < b) {
      return `dsr needs Node.js ${REQUIRED_NODE} or newer; this is Node.js ${running.replace(/^v/, '')}`;
    }
  }
  return undefined;
};
