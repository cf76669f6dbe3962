/**
 * What a `dsr fleet` command line means once parsed: the verbs, their
 * arguments, where the state table is and how to print the outcome.
 */
import type { TableLocator } from '../parse-table-locator.js';

/** The verbs, in the order the usage lists them. */
export const FLEET_VERBS = [
  'apply',
  'list',
  'status',
  'history',
  'pause',
  'resume',
  'abort',
  'approve',
  'rollback',
  'delete',
] as const;

/** The name of a verb (not `help`). */
export type FleetVerb = (typeof FLEET_VERBS)[number];

/** How a verb prints: lines for people, or one JSON or YAML document. */
export type FleetOutputFormat = 'text' | 'json' | 'yaml';

/** What every verb (not `help`) carries. */
interface FleetCommon {
  target: TableLocator;
  output: FleetOutputFormat;
}

/** The verbs that change a rollout's controls. */
export type ControlVerb = 'pause' | 'resume' | 'abort';

/** One parsed invocation of `dsr fleet`. */
export type FleetCommand =
  /** The overview, or one verb's usage (`apply --help`, `help apply`). */
  | { verb: 'help'; topic?: FleetVerb }
  | (FleetCommon & {
      verb: 'apply';
      /** The policy document, YAML or JSON (`-` for stdin). */
      file: string;
      /** Show the wave plan; write nothing. */
      dryRun: boolean;
    })
  | (FleetCommon & { verb: 'list' })
  | (FleetCommon & { verb: 'status' | 'history'; name: string })
  | (FleetCommon & { verb: ControlVerb; name: string })
  | (FleetCommon & { verb: 'approve'; name: string; wave: string })
  | (FleetCommon & {
      verb: 'rollback';
      name: string;
      cluster: string;
      /** The operator's kubeconfig and context for the cluster. */
      kubeconfig?: string;
      context?: string;
      /** Send the write as a server-side dry run; store nothing. */
      dryRun: boolean;
    })
  | (FleetCommon & {
      verb: 'delete';
      name: string;
      /** Delete a rollout under way, releasing its holds. */
      force: boolean;
    });

/** A command that works on the table (every one but `help`). */
export type FleetTableCommand = Exclude<FleetCommand, { verb: 'help' }>;
