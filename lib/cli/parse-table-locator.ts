/**
 * Where a `clusters` command line says the registry is: `--table` (or
 * TABLE_NAME), or `--stage` (its stack names the table), with `--region`
 * and `--endpoint`; and the rule that keeps kubeconfig records out of
 * tables the deployed functions read.
 */
/** Where the registry lives: the state table, and how to reach DynamoDB. */
export interface TableTarget {
  tableName: string;
  /** `--region`, else `AWS_REGION`; undefined leaves it to the SDK. */
  region?: string;
  /** `--endpoint`: a DynamoDB endpoint such as DynamoDB Local. */
  endpoint?: string;
}

/**
 * Where the registry is, as the command line says: a table (TableTarget),
 * or a deployed stage whose stack's outputs name it (`--stage`).
 */
export type TableLocator = TableTarget | { stage: string; region?: string };

/** The options that locate the table, as node:util `parseArgs` takes them. */
export const TABLE_LOCATOR_OPTIONS = {
  table: { type: 'string' },
  stage: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
} as const;

/** The options this part reads (parseArgs values). */
interface LocatorValues {
  table?: string | undefined;
  stage?: string | undefined;
  region?: string | undefined;
  endpoint?: string | undefined;
  kubeconfig?: string | undefined;
}

/** A stage name as osls takes it (it becomes part of resource names). */
const STAGE = /^[a-zA-Z0-9-]+$/;

/** Returns the DynamoDB endpoint's problem, or undefined. */
const endpointProblem = (url: string): string | undefined => {
  try {
    const { protocol } = new URL(url);
    if (protocol === 'http:' || protocol === 'https:') return undefined;
  } catch {
    // Reported below.
  }
  return `--endpoint must be an http(s) URL, not ${JSON.stringify(url)}`;
};

/**
 * Returns the table the command works on, recording what is wrong in
 * `problems`. `env` supplies TABLE_NAME and AWS_REGION.
 */
export const tableLocatorOf = (
  values: LocatorValues,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[]
): TableLocator => {
  const region = values.region ?? env.AWS_REGION;
  const where = region ? { region } : {};
  if (values.endpoint !== undefined) {
    const problem = endpointProblem(values.endpoint);
    if (problem) problems.push(problem);
  }
  if (values.stage !== undefined) {
    if (values.table !== undefined) {
      problems.push('give --table or --stage, not both');
    }
    if (values.endpoint !== undefined) {
      problems.push(
        "--stage reads a deployed stack's table; it does not go with --endpoint"
      );
    }
    if (!STAGE.test(values.stage)) {
      problems.push(
        `--stage must be letters, digits and dashes, not ${JSON.stringify(values.stage)}`
      );
    }
    return { stage: values.stage, ...where };
  }
  const tableName = values.table ?? env.TABLE_NAME;
  if (!tableName) {
    problems.push('give --table NAME (or TABLE_NAME) or --stage NAME');
  }
  return {
    tableName: tableName ?? '',
    ...where,
    ...(values.endpoint ? { endpoint: values.endpoint } : {}),
  };
};

/** Whether `endpoint` is a DynamoDB of AWS itself rather than a local one. */
const isAwsEndpoint = (endpoint: string): boolean => {
  try {
    return /\.amazonaws\.com(\.cn)?$/.test(new URL(endpoint).hostname);
  } catch {
    return false;
  }
};

/**
 * Records a `--kubeconfig` registration aimed at an AWS table: the deployed
 * functions would fail on the record (they cannot read a file on this
 * machine) every minute. Such records belong in DynamoDB Local only.
 */
export const checkKubeconfigTarget = (
  values: LocatorValues,
  problems: string[]
): void => {
  if (values.kubeconfig === undefined) return;
  if (values.endpoint !== undefined && !isAwsEndpoint(values.endpoint)) {
    return;
  }
  problems.push(
    '--kubeconfig registers a file on this machine, which the deployed functions cannot read: it needs --endpoint (DynamoDB Local); register a deployed cluster with --eks-cluster or --secret-arn'
  );
};
