/**
 * The field rules of a cluster record: id, endpoint and CA bundle checks,
 * and the parser of its `auth` block. parseClusterRecord (record.ts)
 * applies them to a whole record.
 */
import { X509Certificate } from 'node:crypto';
import type { ClusterAuth } from '../ports/index.js';

/** Cluster ids are key segments (lib/keys.ts). */
export const ID = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** A DNS label's length keeps keys and FIFO message group ids short. */
export const MAX_ID_LENGTH = 63;
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

export const RECORD_KEYS = [
  'id',
  'endpoint',
  'caData',
  'auth',
  'ownership',
  'bridgeMode',
  'apiBudget',
  'labels',
] as const;
const AUTH_KEYS: Record<ClusterAuth['type'], readonly string[]> = {
  eks: ['type', 'clusterName', 'region', 'roleArn'],
  secret: ['type', 'secretArn'],
  kubeconfig: ['type', 'path', 'context'],
};

export type Problems = { field: string; problem: string }[];

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Returns whether `url` is an https API server URL with nothing but a host. */
export const isHttpsEndpoint = (url: string): boolean => {
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
export const caDataProblem = (caData: string): string | undefined => {
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

export const unknownKeys = (
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

export const parseAuth = (
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
