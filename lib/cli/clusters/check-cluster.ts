/**
 * `clusters check`: whether the reconciler can work with a registered
 * cluster, step by step — the API server answers GET /version (else: which
 * of DNS, TCP, TLS failed), the credentials are accepted (401 ⇒ rejected;
 * SelfSubjectReview names the identity the server sees), and every
 * permission of infra/kubernetes/rbac.yaml is granted (one
 * SelfSubjectAccessReview each).
 */
import { ApiErrorReason, KubeApiError } from '../../errors.js';
import type { ClusterRecord } from '../../ports/index.js';
import { CheckTimeout, describeError, withTimeout } from '../describe-error.js';
import { describeNetworkFailure } from '../describe-network-failure.js';
import { reviewOwnership } from './check-ownership.js';
import type {
  CheckConnection,
  CheckDeps,
  ClusterCheck,
} from './check-types.js';
import {
  accessChecksFromRules,
  formatAccessCheck,
  reconcilerRulesFor,
} from './reconciler-access-checks.js';

/**
 * Reads the server's version within `timeoutMs`; returns whether the later
 * steps can run (the server answered and did not reject the credentials).
 */
const readVersion = async (
  cluster: CheckConnection,
  check: ClusterCheck,
  timeoutMs: number
): Promise<boolean> => {
  try {
    const version = await withTimeout(cluster.probe.version(), timeoutMs, () =>
      cluster.close()
    );
    check.reachable = true;
    if (version !== undefined) check.version = version;
    return true;
  } catch (e) {
    if (e instanceof CheckTimeout) {
      check.problems.push(
        `unreachable: no answer from ${check.server || 'the server'} within ${timeoutMs / 1000} s`
      );
      return false;
    }
    if (!(e instanceof KubeApiError)) {
      // Minting or reading the credential failed before any request.
      check.problems.push(`credentials: ${describeError(e)}`);
      return false;
    }
    if (e.reason === ApiErrorReason.Unreachable) {
      const failure = describeNetworkFailure(e.cause, check.server);
      check.problems.push(`unreachable: ${failure.message}`);
      return false;
    }
    check.reachable = true;
    if (e.reason === ApiErrorReason.Unauthorized) {
      check.authenticated = false;
      check.problems.push('authentication: credentials rejected (401)');
      return false;
    }
    // A role may forbid /version (system:public-info-viewer unbound); the
    // reconciler never reads it, so only other answers are a problem.
    if (e.reason === ApiErrorReason.Forbidden) return true;
    check.problems.push(`GET /version: ${e.message}`);
    return false;
  }
};

/** Returns whether the server accepts the credentials, and as whom. */
const reviewSelf = async (
  cluster: CheckConnection,
  check: ClusterCheck
): Promise<void> => {
  try {
    const user = await cluster.probe.whoAmI();
    check.authenticated = true;
    if (user !== undefined) check.user = user;
    if (check.user === 'system:anonymous') {
      check.problems.push(
        'authentication: the server treats the requests as anonymous (no credentials presented)'
      );
    }
  } catch (e) {
    if (e instanceof KubeApiError && e.reason === ApiErrorReason.Unauthorized) {
      check.authenticated = false;
      check.problems.push('authentication: credentials rejected (401)');
      return;
    }
    // Servers before 1.28 lack SelfSubjectReview, and a role may forbid it;
    // the access reviews below still tell.
    check.authenticated = true;
  }
};

/** Reviews every permission of the reconciler role. */
const reviewAccess = async (
  cluster: CheckConnection,
  check: ClusterCheck,
  ownership: string
): Promise<void> => {
  const checks = accessChecksFromRules(reconcilerRulesFor(ownership));
  try {
    check.access = await Promise.all(
      checks.map(async (c) => ({
        ...c,
        allowed: await cluster.probe.canI(c),
      }))
    );
  } catch (e) {
    check.problems.push(`RBAC: could not be reviewed: ${describeError(e)}`);
    return;
  }
  check.missing = check.access.filter((a) => !a.allowed).map(formatAccessCheck);
};

/**
 * Asks which ownership fits within `timeoutMs` (`clusters add` waits for
 * this answer before writing); no answer in time is a note, not a failure.
 */
const reviewOwnershipInTime = async (
  cluster: CheckConnection,
  check: ClusterCheck,
  record: ClusterRecord,
  timeoutMs: number
): Promise<void> => {
  try {
    await withTimeout(reviewOwnership(cluster, check, record), timeoutMs, () =>
      cluster.close()
    );
  } catch (e) {
    if (!(e instanceof CheckTimeout)) throw e;
    check.notes.push(
      `could not tell whether another DaemonSet controller is active: no answer within ${timeoutMs / 1000} s`
    );
  }
};

/** Returns what a check from this machine cannot prove for the functions. */
const notesFor = (record: ClusterRecord): string[] => {
  if (record.auth.type === 'kubeconfig') {
    return [
      'kubeconfig auth is for local runs only: the deployed functions cannot read this file',
    ];
  }
  if (record.auth.type === 'eks' && record.auth.roleArn === undefined) {
    return [
      "checked with this machine's AWS identity: the deployed functions sign as their own roles, which need their own EKS access entry",
    ];
  }
  return [];
};

/**
 * Returns the outcome of checking `record`: reachability and version (GET
 * /version within `timeoutMs`), authentication, and every permission of the
 * reconciler role. Never throws for a failing cluster; never carries a
 * credential.
 *
 * @example
 * const check = await checkCluster(record, {
 *   connect: (r) => connector.connect(r), timeoutMs: 5_000,
 * });
 * if (!check.ok) console.log(check.problems.join('\n'));
 */
export const checkCluster = async (
  record: ClusterRecord,
  deps: CheckDeps
): Promise<ClusterCheck> => {
  const server = deps.serverOf(record);
  const check: ClusterCheck = {
    id: record.id,
    server,
    ok: false,
    reachable: false,
    access: [],
    missing: [],
    problems: [],
    notes: notesFor(record),
  };
  let cluster: CheckConnection;
  try {
    cluster = await deps.connect(record);
  } catch (e) {
    check.problems.push(`cannot connect: ${describeError(e)}`);
    return check;
  }
  try {
    if (await readVersion(cluster, check, deps.timeoutMs)) {
      await reviewSelf(cluster, check);
      if (check.authenticated) {
        await reviewAccess(cluster, check, record.ownership);
        await reviewOwnershipInTime(cluster, check, record, deps.timeoutMs);
      }
    }
  } finally {
    cluster.close();
  }
  check.ok = check.problems.length === 0 && check.missing.length === 0;
  return check;
};
