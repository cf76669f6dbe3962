/**
 * Validation of cluster records, shared by the registries (on the way in and
 * out) and the CLI that registers clusters; and the credential shapes the
 * credential adapters hand to `kubeConfigForCluster`.
 */
import { X509Certificate } from 'node:crypto';
import { ReconcilerError } from '../errors.js';
import type { ApiBudget, ClusterAuth, ClusterRecord } from '../ports/index.js';

/**
 * How a request to a cluster's API server authenticates: a fixed bearer token
 * (service account), a kubeconfig whose current user carries inline
 * credentials, or a token source called per request (EKS tokens rotate).
 */
export type ClusterCredential =
  | { type: 'token'; token: string }
  | { type: 'kubeconfig'; kubeconfig: string }
  | { type: 'token-source'; token: () => Promise<string> };

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

/**
 * A cluster credential is missing or unusable. Its message never carries the
 * credential's text, and it never has a `cause` that could.
 */
export class ClusterCredentialError extends ReconcilerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ClusterCredentialError';
  }
}

/** Cluster ids are key segments (lib/keys.ts). */
const ID = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** A DNS label's length keeps keys and FIFO message group ids short. */
const MAX_ID_LENGTH = 63;
/** EKS cluster names (CreateCluster `name` constraint). */
const EKS_CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/;
const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:[a-z]{2}(-[a-z]+)+-\d+:\d{12}:secret:[\w/+=.@-]{1,512}$/;
const BASE64 =
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const PEM_CERTIFICATE =
  /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

const RECORD_KEYS = [
  'id',
  'endpoint',
  'caData',
  'auth',
  'ownership',
  'bridgeMode',
  'apiBudget',
] as const;
const AUTH_KEYS: Record<ClusterAuth['type'], readonly string[]> = {
  eks: ['type', 'clusterName', 'region', 'roleArn'],
  secret: ['type', 'secretArn'],
  kubeconfig: ['type', 'path', 'context'],
};

type Problems = { field: string; problem: string }[];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns whether `url` is an https API server URL with nothing but a host. */
const isHttpsEndpoint = (url: string): boolean => {
  try {
    const u = new URL(url);
    // KubeHttp resolves absolute API paths against the endpoint, so a path
    // prefix would silently be dropped.
    return (
      u.protocol === 'https:' &&
      u.username === '' &&
      u.password === '' &&
      u.pathname === '/' &&
      u.search === '' &&
      u.hash === '' &&
      !url.includes('?') &&
      !url.includes('#')
    );
  } catch {
    return false;
  }
};

/** Returns the problem with a base64 PEM CA bundle, or undefined. */
const caDataProblem = (caData: string): string | undefined => {
  if (!BASE64.test(caData)) return 'must be base64 (no line breaks)';
  const pem = Buffer.from(caData, 'base64').toString('utf8');
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return 'must hold at least one PEM certificate';
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      return 'holds a PEM block that is not an X.509 certificate';
    }
  }
  return undefined;
};

const unknownKeys = (
  value: Record<string, unknown>,
  allowed: readonly string[],
  prefix: string,
  problems: Problems
): void => {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      problems.push({
        field: `${prefix}${key}`,
        problem: 'is not a known field',
      });
    }
  }
};

const parseAuth = (
  raw: unknown,
  problems: Problems
): ClusterAuth | undefined => {
  if (!isObject(raw)) {
    problems.push({ field: 'auth', problem: 'must be an object' });
    return undefined;
  }
  const text = (key: string, pattern: RegExp, what: string) => {
    const v = raw[key];
    if (typeof v !== 'string' || !pattern.test(v)) {
      problems.push({ field: `auth.${key}`, problem: `must be ${what}` });
      return '';
    }
    return v;
  };
  const type = raw.type;
  if (type !== 'eks' && type !== 'secret' && type !== 'kubeconfig') {
    problems.push({
      field: 'auth.type',
      problem: "must be 'eks', 'secret' or 'kubeconfig'",
    });
    return undefined;
  }
  unknownKeys(raw, AUTH_KEYS[type], 'auth.', problems);
  switch (type) {
    case 'eks': {
      const auth: ClusterAuth = {
        type,
        clusterName: text(
          'clusterName',
          EKS_CLUSTER_NAME,
          'an EKS cluster name'
        ),
        region: text('region', AWS_REGION, 'an AWS region such as us-east-1'),
      };
      if (raw.roleArn !== undefined) {
        auth.roleArn = text('roleArn', ROLE_ARN, 'an IAM role ARN');
      }
      return auth;
    }
    case 'secret':
      return {
        type,
        secretArn: text(
          'secretArn',
          SECRET_ARN,
          'a Secrets Manager secret ARN'
        ),
      };
    case 'kubeconfig': {
      const auth: ClusterAuth = {
        type,
        path: text('path', /^.+$/, 'a non-empty file path'),
      };
      if (raw.context !== undefined) {
        auth.context = text('context', /^.+$/, 'a non-empty context name');
      }
      return auth;
    }
  }
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
  const id = raw.id;
  const idValid =
    typeof id === 'string' && id.length <= MAX_ID_LENGTH && ID.test(id);
  if (!idValid) {
    problems.push({
      field: 'id',
      problem: `must match ${ID.source} and be at most ${MAX_ID_LENGTH} characters`,
    });
  }
  const auth = parseAuth(raw.auth, problems);
  const fromFile = auth?.type === 'kubeconfig';
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
  if (raw.ownership !== 'apps/v1') {
    problems.push({ field: 'ownership', problem: "must be 'apps/v1'" });
  }
  const bridgeMode = raw.bridgeMode;
  if (bridgeMode !== 'watch' && bridgeMode !== 'economy') {
    problems.push({
      field: 'bridgeMode',
      problem: "must be 'watch' or 'economy'",
    });
  }
  const apiBudget = raw.apiBudget as Partial<ApiBudget> | undefined;
  if (apiBudget !== undefined) {
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
  }
  if (problems.length > 0 || auth === undefined) {
    throw new InvalidClusterRecordError(
      idValid ? (id as string) : undefined,
      problems
    );
  }
  return {
    id: id as string,
    endpoint: endpoint as string,
    caData: caData as string,
    auth,
    ownership: 'apps/v1',
    bridgeMode: bridgeMode as ClusterRecord['bridgeMode'],
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
