/**
 * Validation of cluster records, shared by the registries (on the way in and
 * out) and the CLI that registers clusters.
 */
import { ReconcilerError } from '../errors.js';
import type { ApiBudget, ClusterRecord, Ownership } from '../ports/index.js';
import { newRequirement } from '../reconcile/k8s/label-selector.js';
import {
  caDataProblem,
  ID,
  isHttpsEndpoint,
  isObject,
  MAX_ID_LENGTH,
  type Problems,
  parseAuth,
  RECORD_KEYS,
  unknownKeys,
} from './record-fields.js';

/** Every ownership mode a record may name (ports' Ownership). */
export const OWNERSHIP_MODES: readonly Ownership[] = [
  'apps/v1',
  'apps.dsr.dev/v1beta1',
  'apps/v1+OnDelete',
];

/** A cluster record breaks the registry's rules; lists every problem. */
export class InvalidClusterRecordError extends ReconcilerError {
  /** The record's id when it is valid, else undefined. */
  readonly clusterId: string | undefined;
  /** The offending fields (`endpoint`, `auth.region`, …), in order. */
  readonly fields: readonly string[];
  readonly problems: readonly string[];

  constructor(
    clusterId: string | undefined,
    problems: readonly { field: string; problem: string }[]
  ) {
    const what = clusterId ? `cluster record ${clusterId}` : 'cluster record';
    const text = problems.map((p) => `${p.field} ${p.problem}`);
    super(`invalid ${what}: ${text.join('; ')}`);
    this.name = 'InvalidClusterRecordError';
    this.clusterId = clusterId;
    this.fields = problems.map((p) => p.field);
    this.problems = text;
  }
}

/** Checks `endpoint` and `caData` against the record's auth type. */
const checkServer = (
  raw: Record<string, unknown>,
  fromFile: boolean,
  problems: Problems
): void => {
  const endpoint = raw.endpoint ?? '';
  const caData = raw.caData ?? '';
  if (typeof endpoint !== 'string') {
    problems.push({ field: 'endpoint', problem: 'must be a string' });
  } else if (fromFile && endpoint !== '') {
    problems.push({
      field: 'endpoint',
      problem: 'must be empty for kubeconfig auth (the file names the server)',
    });
  } else if (!fromFile && !isHttpsEndpoint(endpoint)) {
    problems.push({
      field: 'endpoint',
      problem: 'must be an https URL with no path, query or user info',
    });
  }
  if (typeof caData !== 'string') {
    problems.push({ field: 'caData', problem: 'must be a string' });
  } else if (fromFile && caData !== '') {
    problems.push({
      field: 'caData',
      problem: 'must be empty for kubeconfig auth (the file holds the CA)',
    });
  } else if (!fromFile) {
    const problem = caDataProblem(caData);
    if (problem) problems.push({ field: 'caData', problem });
  }
};

/** Checks `ownership` and `bridgeMode`. */
const checkModes = (raw: Record<string, unknown>, problems: Problems): void => {
  if (!(OWNERSHIP_MODES as readonly unknown[]).includes(raw.ownership)) {
    problems.push({
      field: 'ownership',
      problem: `must be ${OWNERSHIP_MODES.map((m) => `'${m}'`).join(', ')}`,
    });
  }
  if (raw.bridgeMode !== 'watch' && raw.bridgeMode !== 'economy') {
    problems.push({
      field: 'bridgeMode',
      problem: "must be 'watch' or 'economy'",
    });
  }
};

/** Checks the optional `apiBudget`. */
const checkApiBudget = (
  apiBudget: Partial<ApiBudget> | undefined,
  problems: Problems
): void => {
  if (apiBudget === undefined) return;
  const { qps, burst } = apiBudget ?? {};
  if (typeof qps !== 'number' || !(qps > 0 && qps <= 1_000)) {
    problems.push({
      field: 'apiBudget.qps',
      problem: 'must be a number in (0, 1000]',
    });
  }
  if (
    typeof burst !== 'number' ||
    !Number.isInteger(burst) ||
    burst < 1 ||
    burst > 10_000
  ) {
    problems.push({
      field: 'apiBudget.burst',
      problem: 'must be a whole number in 1..10000',
    });
  }
};

/** Checks the optional `labels`: Kubernetes label keys and values. */
const checkLabels = (labels: unknown, problems: Problems): void => {
  if (labels === undefined) return;
  if (!isObject(labels)) {
    problems.push({ field: 'labels', problem: 'must be a map of strings' });
    return;
  }
  for (const [k, v] of Object.entries(labels)) {
    try {
      if (typeof v !== 'string') throw new Error('the value must be a string');
      newRequirement(k, 'In', [v]);
    } catch (e) {
      problems.push({ field: `labels.${k}`, problem: (e as Error).message });
    }
  }
};

/** Returns whether `id` is a valid cluster id; records the problem if not. */
const checkId = (id: unknown, problems: Problems): id is string => {
  if (typeof id === 'string' && id.length <= MAX_ID_LENGTH && ID.test(id)) {
    return true;
  }
  problems.push({
    field: 'id',
    problem: `must match ${ID.source} and be at most ${MAX_ID_LENGTH} characters`,
  });
  return false;
};

/**
 * Returns `raw` as a valid ClusterRecord (a fresh object holding only the
 * known fields); throws one InvalidClusterRecordError naming every bad field.
 * Records whose auth is `kubeconfig` have an empty endpoint and CA (the file
 * names them); every other record needs an https endpoint without a path and
 * a base64 PEM CA bundle, because TLS is always verified.
 *
 * @example
 * const record = parseClusterRecord(JSON.parse(text));
 */
export const parseClusterRecord = (raw: unknown): ClusterRecord => {
  if (!isObject(raw)) {
    throw new InvalidClusterRecordError(undefined, [
      { field: 'record', problem: 'must be an object' },
    ]);
  }
  const problems: Problems = [];
  unknownKeys(raw, RECORD_KEYS, '', problems);
  const idValid = checkId(raw.id, problems);
  const auth = parseAuth(raw.auth, problems);
  checkServer(raw, auth?.type === 'kubeconfig', problems);
  checkModes(raw, problems);
  const apiBudget = raw.apiBudget as Partial<ApiBudget> | undefined;
  checkApiBudget(apiBudget, problems);
  checkLabels(raw.labels, problems);
  if (problems.length > 0 || auth === undefined) {
    throw new InvalidClusterRecordError(
      idValid ? (raw.id as string) : undefined,
      problems
    );
  }
  return {
    id: raw.id as string,
    endpoint: (raw.endpoint ?? '') as string,
    caData: (raw.caData ?? '') as string,
    auth,
    ownership: raw.ownership as ClusterRecord['ownership'],
    bridgeMode: raw.bridgeMode as ClusterRecord['bridgeMode'],
    ...(raw.labels === undefined ||
    Object.keys(raw.labels as object).length === 0
      ? {}
      : { labels: { ...(raw.labels as Record<string, string>) } }),
    ...(apiBudget === undefined
      ? {}
      : {
          apiBudget: {
            qps: apiBudget.qps as number,
            burst: apiBudget.burst as number,
          },
        }),
  };
};
