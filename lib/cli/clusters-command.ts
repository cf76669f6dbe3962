/**
 * What a `clusters` command line means once parsed: the commands, their
 * options and the usage text that lists them.
 */

/** Where the registry lives: the state table, and how to reach DynamoDB. */
export interface TableTarget {
  tableName: string;
  /** `--region`, else `AWS_REGION`; undefined leaves it to the SDK. */
  region?: string;
  /** `--endpoint`: a DynamoDB endpoint such as DynamoDB Local. */
  endpoint?: string;
}

/** The options of `add`, as given (validated by clusterRecordFromOptions). */
export interface AddOptions {
  id: string;
  server?: string;
  caFile?: string;
  caData?: string;
  eksCluster?: string;
  eksRegion?: string;
  roleArn?: string;
  secretArn?: string;
  kubeconfig?: string;
  context?: string;
  mode: 'watch' | 'economy';
  /**
   * What the reconciler owns there (as given): `apps/v1` DaemonSets, or the
   * own kind `apps.dsr.dev/v1beta1` (managed clusters).
   */
  ownership?: string;
  /** Overwrite a record that is already registered under the id. */
  replace: boolean;
  /**
   * Register apps/v1 ownership without asking the cluster whether another
   * DaemonSet controller is active there.
   */
  skipCheck: boolean;
  /** Requests per second and burst shared by all reconcilers (as given). */
  apiQps?: string;
  apiBurst?: string;
}

/** One parsed invocation of the CLI. */
export type ClustersCommand =
  | { name: 'help' }
  | { name: 'list'; table: TableTarget; json: boolean }
  | {
      name: 'add';
      table: TableTarget;
      json: boolean;
      add: AddOptions;
      /** How long the ownership probe may take. */
      timeoutMs: number;
    }
  | {
      name: 'check';
      table: TableTarget;
      json: boolean;
      /** One cluster, or every registered one when undefined. */
      id: string | undefined;
      /** How long GET /version may take before the server counts as unreachable. */
      timeoutMs: number;
    }
  | { name: 'remove'; table: TableTarget; json: boolean; id: string }
  | {
      name: 'unfence';
      table: TableTarget;
      json: boolean;
      id: string;
      /** `namespace/name`: clear that DaemonSet's own fence instead. */
      daemonSet?: string;
    };

/** Seconds GET /version may take by default: a reachable server answers in far less. */
export const DEFAULT_CHECK_TIMEOUT_SECONDS = 5;
/** Longer than a Lambda's own connect budget is never useful. */
export const MAX_CHECK_TIMEOUT_SECONDS = 60;

/** The text `--help` prints. */
export const CLUSTERS_USAGE = `usage: npm run clusters -- <command> [options]

commands:
  list                       the registered clusters (id, server, auth, mode)
  add    --id ID AUTH [--mode watch|economy] [--replace]
         [--ownership apps/v1|apps.dsr.dev/v1beta1]
                                       which DaemonSets it reconciles: native
                                       ones (default; the cluster's own
                                       DaemonSet controller must be off, and
                                       add refuses a cluster where one is
                                       active) or the own AdvancedDaemonSet
                                       kind (EKS, GKE, AKS)
         [--skip-check]                register apps/v1 without asking the
                                       cluster (e.g. not reachable from here)
         [--timeout SECONDS]           how long that question may take
         [--api-qps N --api-burst N]   the cluster's shared API budget
                                       (default 50 and 100)
         AUTH is one of
           --eks-cluster NAME [--eks-region R] [--role-arn ARN] --server URL CA
           --secret-arn ARN --server URL CA
           --kubeconfig PATH [--context NAME]      (local runs and tests only)
         CA is --ca-file PEM or --ca-data BASE64
  check  [--id ID] [--timeout SECONDS]
                             reachability, version, authentication and RBAC
                             of one cluster, or of all; exit code 0 only if
                             everything holds
  remove --id ID             deletes the cluster's record
  unfence --id ID [--daemonset NS/NAME]
                             lets the reconciler act again on a cluster (or
                             one DaemonSet) it stopped on because another
                             controller was active there (turn it off first)

options of every command:
  --table NAME               the state table (default: $TABLE_NAME)
  --region R                 AWS region of the table (default: $AWS_REGION)
  --endpoint URL             DynamoDB endpoint (e.g. DynamoDB Local)
  --json                     machine-readable output
  -h, --help                 this text
`;
