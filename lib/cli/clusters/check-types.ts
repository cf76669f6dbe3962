/**
 * The words of `clusters check`: the connection and dependencies a check
 * uses and the outcome it reports, shared by check-cluster.ts and
 * check-ownership.ts.
 */
import type { ClusterConnection, ClusterRecord } from '../../ports/index.js';
import type { AccessCheck } from './reconciler-access-checks.js';

/** The part of a connection a check uses. */
export type CheckConnection = Pick<ClusterConnection, 'probe' | 'close'>;

/** What a check needs: how to open a cluster, and how long to wait. */
export interface CheckDeps {
  /** Opens the cluster as the deployed functions do (ClusterConnector). */
  connect(record: ClusterRecord): Promise<CheckConnection>;
  /** Returns the record's API server URL (from the file for kubeconfig). */
  serverOf(record: ClusterRecord): string;
  /**
   * How long GET /version may take before the server counts as unreachable,
   * and the ownership question before it counts as unanswered.
   */
  timeoutMs: number;
}

/** One permission and whether the cluster grants it. */
export interface AccessResult extends AccessCheck {
  allowed: boolean;
}

/** The outcome of checking one cluster; `ok` only if everything holds. */
export interface ClusterCheck {
  id: string;
  /** The API server URL (for kubeconfig auth, the file's), or ''. */
  server: string;
  ok: boolean;
  reachable: boolean;
  /** `gitVersion` of GET /version, e.g. `v1.36.3`. */
  version?: string;
  /** Whether the server accepted the credentials. */
  authenticated?: boolean;
  /** The user name the server sees (SelfSubjectReview), when it says. */
  user?: string;
  /** Every permission reviewed, in the order of rbac.yaml. */
  access: AccessResult[];
  /** The permissions denied, as `verb resource` (`create pods`). */
  missing: string[];
  /** Everything else that does not hold, one line each. */
  problems: string[];
  /** What the check cannot prove for the deployed functions. */
  notes: string[];
}
