/**
 * Turns the options of `clusters add` into a ClusterRecord: which options go
 * together, the ARNs the deployed IAM policy allows, the CA from a file, and
 * then the registry's own validation (lib/cluster/record.ts), with its field
 * names translated back into the options the operator typed.
 */
import path from 'node:path';
import {
  InvalidClusterRecordError,
  parseClusterRecord,
} from '../../cluster/record.js';
import { DEFAULT_API_CEILING } from '../../policy/request-budget.js';
import type { ClusterRecord } from '../../ports/index.js';
import { CliUsageError } from '../cli-usage-error.js';
import type { AddOptions } from './clusters-command.js';

/** What building a record reads from this machine. */
export interface RecordSources {
  /** Returns a file's text; throws (with a `code` such as ENOENT) when it cannot. */
  readTextFile(file: string): string;
  /** The deployment's region (`--region` or AWS_REGION), when known. */
  region?: string;
}

/**
 * Role ARNs the functions may assume: infra/resources/iam.yml grants
 * sts:AssumeRole on `role/dsr-cluster-*` only (so no IAM path either).
 */
const CLUSTER_ROLE_ARN =
  /^arn:aws[a-z-]*:iam::\d{12}:role\/dsr-cluster-[\w+=,.@-]+$/;
/**
 * Secret ARNs the functions may read: infra/resources/iam.yml grants
 * secretsmanager:GetSecretValue on `secret:dsr/*` in the stack's region.
 */
const CLUSTER_SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:([a-z]{2}(?:-[a-z]+)+-\d+):\d{12}:secret:dsr\/[\w/+=.@-]+$/;

/** The option an operator types for each field of a ClusterRecord. */
const OPTION_OF_FIELD: Record<string, string> = {
  id: '--id',
  endpoint: '--server',
  'auth.clusterName': '--eks-cluster',
  'auth.region': '--eks-region (or --region)',
  'auth.roleArn': '--role-arn',
  'auth.secretArn': '--secret-arn',
  'auth.path': '--kubeconfig',
  'auth.context': '--context',
  bridgeMode: '--mode',
  ownership: '--ownership',
  'apiBudget.qps': '--api-qps',
  'apiBudget.burst': '--api-burst',
};

/**
 * Returns the labels of `--label key=value` options; a malformed one is a
 * usage error (keys and values are checked with the record).
 */
export const labelsOf = (given: readonly string[]): Record<string, string> => {
  const labels: Record<string, string> = {};
  for (const kv of given) {
    const at = kv.indexOf('=');
    if (at <= 0) {
      throw new CliUsageError([
        `--label must be key=value, not ${JSON.stringify(kv)}`,
      ]);
    }
    labels[kv.slice(0, at)] = kv.slice(at + 1);
  }
  return labels;
};

/** Returns why a file could not be read, without its contents. */
const readProblem = (option: string, file: string, e: unknown): string => {
  const code = (e as { code?: unknown }).code;
  return `${option} ${file} cannot be read${typeof code === 'string' ? ` (${code})` : ''}`;
};

/** Returns the problems of which options were combined. */
const combinationProblems = (o: AddOptions): string[] => {
  const problems: string[] = [];
  const auths = [o.eksCluster, o.secretArn, o.kubeconfig].filter(
    (v) => v !== undefined
  );
  if (auths.length !== 1) {
    problems.push(
      'give exactly one of --eks-cluster, --secret-arn, --kubeconfig'
    );
  }
  if (o.eksCluster === undefined) {
    if (o.eksRegion !== undefined) {
      problems.push('--eks-region only goes with --eks-cluster');
    }
    if (o.roleArn !== undefined) {
      problems.push('--role-arn only goes with --eks-cluster');
    }
  }
  if (o.kubeconfig === undefined && o.context !== undefined) {
    problems.push('--context only goes with --kubeconfig');
  }
  if (o.kubeconfig !== undefined) {
    if ([o.server, o.caFile, o.caData].some((v) => v !== undefined)) {
      problems.push(
        '--server, --ca-file and --ca-data do not go with --kubeconfig (the file names the server and its CA)'
      );
    }
  } else {
    if (o.server === undefined) problems.push('--server URL is required');
    if ((o.caFile === undefined) === (o.caData === undefined)) {
      problems.push(
        'give exactly one of --ca-file PEM, --ca-data BASE64 (TLS is always verified)'
      );
    }
  }
  return problems;
};

/** Returns the problems of ARNs the deployed IAM policy would refuse. */
const arnProblems = (o: AddOptions, region: string | undefined): string[] => {
  const problems: string[] = [];
  if (o.roleArn !== undefined && !CLUSTER_ROLE_ARN.test(o.roleArn)) {
    problems.push(
      '--role-arn must name a role dsr-cluster-* without a path (arn:aws:iam::<account>:role/dsr-cluster-<name>) in the deployment account: the deployed functions may only assume those roles (infra/resources/iam.yml)'
    );
  }
  if (o.secretArn !== undefined) {
    const match = CLUSTER_SECRET_ARN.exec(o.secretArn);
    if (match === null) {
      problems.push(
        '--secret-arn must name a Secrets Manager secret under dsr/ (e.g. dsr/<cluster id>) in the deployment account and region: the deployed functions may only read secrets dsr/* (infra/resources/iam.yml)'
      );
    } else if (region !== undefined && match[1] !== region) {
      problems.push(
        `--secret-arn names a secret in ${match[1]}, but the deployment is in ${region}: the deployed functions may only read secrets dsr/* of their own region (infra/resources/iam.yml)`
      );
    }
  }
  return problems;
};

/**
 * Returns the CLI's problems for a record the registry refused: each field
 * name replaced by the option that sets it.
 */
const optionProblems = (
  e: InvalidClusterRecordError,
  o: AddOptions
): string[] =>
  e.problems.map((text, i) => {
    const field = e.fields[i] ?? '';
    const option =
      field === 'caData'
        ? o.caFile !== undefined
          ? `--ca-file ${o.caFile}`
          : '--ca-data'
        : OPTION_OF_FIELD[field];
    return option !== undefined && text.startsWith(`${field} `)
      ? `${option} ${text.slice(field.length + 1)}`
      : text;
  });

/**
 * Returns the API ceiling of `--api-qps`/`--api-burst` (numbers checked by
 * parseClusterRecord): a rate given alone keeps two seconds of it as its
 * burst, as the default ceiling does.
 */
const ceilingOf = (qpsText?: string, burstText?: string) => {
  const qps = Number(qpsText ?? DEFAULT_API_CEILING.qps);
  const burst =
    burstText !== undefined
      ? Number(burstText)
      : qpsText !== undefined && qps > 0
        ? Math.ceil(2 * qps)
        : DEFAULT_API_CEILING.burst;
  return { qps, burst };
};

/**
 * Returns the validated record that `clusters add` stores; throws one
 * CliUsageError listing every problem. A kubeconfig path is made absolute
 * (the record outlives the working directory), a CA file is read and
 * base64-encoded, and an EKS region defaults to the deployment's region.
 *
 * @example
 * const record = clusterRecordFromOptions(command.add, {
 *   readTextFile: (f) => readFileSync(f, 'utf8'),
 *   region: command.table.region,
 * });
 */
export const clusterRecordFromOptions = (
  o: AddOptions,
  sources: RecordSources
): ClusterRecord => {
  const problems = [
    ...combinationProblems(o),
    ...arnProblems(o, sources.region),
  ];
  let caData = o.caData?.replace(/\s+/g, '') ?? '';
  if (o.caFile !== undefined) {
    try {
      caData = Buffer.from(sources.readTextFile(o.caFile), 'utf8').toString(
        'base64'
      );
    } catch (e) {
      problems.push(readProblem('--ca-file', o.caFile, e));
    }
  }
  const kubeconfig =
    o.kubeconfig === undefined ? undefined : path.resolve(o.kubeconfig);
  if (kubeconfig !== undefined) {
    try {
      sources.readTextFile(kubeconfig);
    } catch (e) {
      problems.push(readProblem('--kubeconfig', kubeconfig, e));
    }
  }
  const eksRegion = o.eksRegion ?? sources.region;
  if (o.eksCluster !== undefined && eksRegion === undefined) {
    problems.push('--eks-region R is required (or --region / AWS_REGION)');
  }
  if (problems.length > 0) throw new CliUsageError(problems);
  const auth =
    o.eksCluster !== undefined
      ? {
          type: 'eks',
          clusterName: o.eksCluster,
          region: eksRegion,
          ...(o.roleArn !== undefined && { roleArn: o.roleArn }),
        }
      : o.secretArn !== undefined
        ? { type: 'secret', secretArn: o.secretArn }
        : {
            type: 'kubeconfig',
            path: kubeconfig,
            ...(o.context !== undefined && { context: o.context }),
          };
  try {
    return parseClusterRecord({
      id: o.id,
      endpoint: o.server ?? '',
      caData,
      auth,
      ownership: o.ownership ?? 'apps/v1',
      bridgeMode: o.mode,
      ...(o.labels === undefined ? {} : { labels: labelsOf(o.labels) }),
      ...(o.apiQps !== undefined || o.apiBurst !== undefined
        ? { apiBudget: ceilingOf(o.apiQps, o.apiBurst) }
        : {}),
    });
  } catch (e) {
    if (e instanceof InvalidClusterRecordError) {
      throw new CliUsageError(optionProblems(e, o), { cause: e });
    }
    throw e;
  }
};
