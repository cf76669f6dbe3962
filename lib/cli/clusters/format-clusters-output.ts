/**
 * The human-readable output of the cluster registry CLI: the list table and
 * the lines of a check. Records and checks carry no credential (auth holds
 * only names, ARNs and paths), so nothing here can print one.
 */
import type { ClusterAuth, ClusterRecord } from '../../ports/index.js';
import { humanDuration } from '../daemon-set-table.js';
import type { ClusterCheck } from './check-types.js';
import { formatResource } from './reconciler-access-checks.js';
import type { ClusterState } from './runtime-state.js';

/** Returns how a cluster authenticates, e.g. `eks prod eu-west-1`. */
export const describeAuth = (auth: ClusterAuth): string => {
  switch (auth.type) {
    case 'eks':
      return `eks ${auth.clusterName} ${auth.region}${auth.roleArn === undefined ? '' : ` via ${auth.roleArn}`}`;
    case 'secret':
      return `secret ${auth.secretArn}`;
    case 'kubeconfig':
      return `kubeconfig ${auth.path}${auth.context === undefined ? '' : ` (context ${auth.context})`}`;
  }
};

/** Returns rows as left-aligned columns two spaces apart. */
const columns = (rows: readonly (readonly string[])[]): string[] => {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)
      )
      .join('  ')
  );
};

/** How `clusters list` prints its table. */
export interface TableOptions {
  /** `-o wide`: also the bridge's state, nodes, ownership, auth details. */
  wide?: boolean;
  /** `--no-headers`: rows only. */
  noHeaders?: boolean;
  /** Now, for the age of the last checkpoint. */
  nowMs?: number;
}

/** Returns when the bridge last checkpointed, e.g. `12s ago (failing ×2)`. */
const lastBridged = (state: ClusterState | undefined, nowMs: number) => {
  if (state === undefined) return '-';
  const at = state.checkpointedAtMs;
  const age = at === undefined ? 'never' : `${humanDuration(nowMs - at)} ago`;
  return state.bridge.startsWith('failing') ? `${age} (${state.bridge})` : age;
};

/**
 * Returns the lines of `clusters list`: a header and one row per cluster
 * (id, server, mode, status, API budget, last bridge checkpoint, auth;
 * wide: also bridge state, nodes, ownership, labels and the auth details).
 * `serverOf` names the server of records whose kubeconfig holds it.
 */
export const formatClusterTable = (
  records: readonly ClusterRecord[],
  serverOf: (record: ClusterRecord) => string,
  states: ReadonlyMap<string, ClusterState> = new Map(),
  { wide = false, noHeaders = false, nowMs = Date.now() }: TableOptions = {}
): string[] => {
  if (records.length === 0) return noHeaders ? [] : ['no clusters registered'];
  const header = [
    'ID',
    'SERVER',
    'MODE',
    'STATUS',
    'BUDGET',
    'LAST-BRIDGED',
    ...(wide ? ['BRIDGE', 'NODES', 'OWNERSHIP', 'LABELS'] : []),
    'AUTH',
  ];
  const rows = records.map((r) => {
    const state = states.get(r.id);
    return [
      r.id,
      serverOf(r) || '-',
      r.bridgeMode,
      state?.status ?? '-',
      state?.budget ?? '-',
      lastBridged(state, nowMs),
      ...(wide
        ? [
            state?.bridge ?? '-',
            state?.nodes === undefined ? '-' : String(state.nodes),
            r.ownership,
            Object.entries(r.labels ?? {})
              .map(([k, v]) => `${k}=${v}`)
              .join(',') || '<none>',
          ]
        : []),
      wide ? describeAuth(r.auth) : r.auth.type,
    ];
  });
  return columns(noHeaders ? rows : [header, ...rows]);
};

/** Returns denied permissions grouped by resource: `pods: create, delete`. */
const groupMissing = (check: ClusterCheck): string[] => {
  const verbs = new Map<string, string[]>();
  for (const a of check.access.filter((x) => !x.allowed)) {
    const resource = formatResource(a);
    verbs.set(resource, [...(verbs.get(resource) ?? []), a.verb]);
  }
  return [...verbs].map(([resource, v]) => `${resource}: ${v.join(', ')}`);
};

/**
 * Returns the lines `clusters check` prints for one cluster; `runtime` is
 * what the reconcilers recorded (a fence fails the verdict, printed last).
 */
export const formatCheck = (
  check: ClusterCheck,
  runtime: { lines: readonly string[]; fenced: boolean } = {
    lines: [],
    fenced: false,
  }
): string[] => {
  const ok = (text: string) => `  ok    ${text}`;
  const fail = (text: string) => `  FAIL  ${text}`;
  const lines = [`cluster ${check.id} (${check.server || 'server unknown'})`];
  if (check.reachable) {
    lines.push(
      ok(
        check.version === undefined
          ? 'reachable (version not readable)'
          : `reachable: Kubernetes ${check.version}`
      )
    );
  }
  if (check.authenticated && check.user !== 'system:anonymous') {
    lines.push(
      ok(`authenticated as ${check.user ?? '(the server does not say)'}`)
    );
  }
  if (check.access.length > 0 && check.missing.length === 0) {
    lines.push(
      ok(
        `RBAC: all ${check.access.length} permissions of infra/kubernetes/rbac.yaml granted`
      )
    );
  }
  if (check.missing.length > 0) {
    lines.push(
      fail(
        `RBAC: ${check.missing.length} of ${check.access.length} permissions denied; missing:`
      ),
      ...groupMissing(check).map((m) => `          ${m}`)
    );
  }
  lines.push(...check.problems.map(fail));
  lines.push(...check.notes.map((n) => `  note  ${n}`));
  lines.push(...runtime.lines);
  lines.push(check.ok && !runtime.fenced ? '  => OK' : '  => FAILED');
  return lines;
};
