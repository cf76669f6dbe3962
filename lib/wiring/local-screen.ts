/**
 * What `npm start` shows: its lines, warnings and errors of the product,
 * and the progress table of the owned DaemonSets, redrawn in place on a
 * terminal like `kubectl get ds -w`, and through a pipe a new table only
 * when pods or status changed.
 */
import { formatDaemonSetTable } from '../cli/daemon-set-table.js';
import type { ClusterWatch, Logger } from '../ports/index.js';
import type { DaemonSet } from '../reconcile/k8s/types.js';
import type { LocalMetrics } from './local-runtime.js';

/** How often the progress table is drawn. */
const PROGRESS_EVERY_MS = 1_000;

/** The local run's output: one stream, a line at a time or the table. */
export class LocalScreen {
  /** Lines of the progress table on screen (redrawn in place on a terminal). */
  #drawn = 0;
  #lastKey = '';
  readonly #out: NodeJS.WriteStream;

  constructor(out: NodeJS.WriteStream) {
    this.#out = out;
  }

  /** Prints a line below the table. */
  readonly say = (line: string): void => {
    this.#drawn = 0;
    this.#write(`${line}\n`);
  };

  /** The product's logger: warnings and errors as lines, nothing else. */
  readonly logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (m, f) => this.say(`warn: ${m} ${JSON.stringify(f ?? {})}`),
    error: (m, f) => this.say(`error: ${m} ${JSON.stringify(f ?? {})}`),
  };

  /** Prints; a closed pipe (e.g. `| head`) must not crash the stop. */
  #write(text: string): void {
    try {
      this.#out.write(text);
    } catch {
      // EPIPE: the reader went away; shutdown still cleans up.
    }
  }

  /**
   * Draws the table of the watched DaemonSets every second until the
   * returned function is called.
   */
  showProgress(watch: ClusterWatch, metrics: LocalMetrics): () => void {
    const timer = setInterval(async () => {
      const items = await watch
        .list<DaemonSet>('daemonSets')
        .then((l) => l.items)
        .catch(() => []);
      this.#draw(items, metrics);
    }, PROGRESS_EVERY_MS);
    return () => clearInterval(timer);
  }

  #draw(items: DaemonSet[], m: LocalMetrics): void {
    const lines = [
      `${m.syncs} syncs, ${m.creates} pods created, ${m.deletes} deleted`,
      ...formatDaemonSetTable(items, Date.now()),
    ];
    if (this.#out.isTTY === true) {
      // Like `kubectl get ds -w`, but in place: move up over the last table.
      const up = this.#drawn > 0 ? `\x1b[${this.#drawn}A\x1b[J` : '';
      this.#write(`${up}${lines.join('\n')}\n`);
      this.#drawn = lines.length;
      return;
    }
    // Through a pipe, a new table only when pods or status changed (not
    // AGE, not a sync that changed nothing).
    const key = JSON.stringify([
      m.creates,
      m.deletes,
      items.map((ds) => [ds.metadata?.name, ds.status]),
    ]);
    if (key !== this.#lastKey) this.say(lines.join('\n'));
    this.#lastKey = key;
  }
}
