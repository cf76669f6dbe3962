/**
 * What serverless.yml must declare per function: the expectations of
 * serverless-template.test.ts, kept apart so the test reads as assertions.
 */

/** The cluster-credential secrets (an `Fn::Sub` string). */
export const SECRETS =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an Fn::Sub string
  'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:dsr/*';
/** The per-cluster roles the functions may assume (an `Fn::Sub` string). */
export const CLUSTER_ROLES =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an Fn::Sub string
  'arn:${AWS::Partition}:iam::${AWS::AccountId}:role/dsr-cluster-*';
/** The account's EKS clusters, whose endpoints and CAs are read from EKS. */
export const EKS_CLUSTERS =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an Fn::Sub string
  'arn:${AWS::Partition}:eks:*:${AWS::AccountId}:cluster/*';

const logs = (group: string) => [
  `logs:CreateLogStream ${group}`,
  `logs:PutLogEvents ${group}`,
];
const table = (...actions: string[]) =>
  actions.map((a) => `dynamodb:${a} StateTable`);

/**
 * Each function as the template must declare it: logical-id stem, osls key,
 * timeout, and exactly what its role allows (`action resource` lines).
 */
/**
 * The item kinds (partition-key prefixes) each function's table rights are
 * scoped to by `dynamodb:LeadingKeys`, one list per Allow statement on the
 * table; role-grants.test.ts (integration) records the keys the code really
 * uses.
 */
const BRIDGE_KEYS = [
  'budget#*',
  'cluster#*',
  'exp#*',
  'lease#*',
  'nodes#*',
  'q#*',
];

/** What both bridge functions may do, beside their own logs. */
const bridgeGrants = [
  ...table('GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'),
  ...table('DeleteItem', 'ConditionCheckItem'),
  'sqs:SendMessage WorkQueue',
  // A pod turned ready under minReadySeconds: its owner again, later.
  'sqs:SendMessage DelayQueue',
  `secretsmanager:GetSecretValue ${SECRETS}`,
  `sts:AssumeRole ${CLUSTER_ROLES}`,
  `eks:DescribeCluster ${EKS_CLUSTERS}`,
];

export const FUNCTION_SPECS = [
  {
    id: 'BridgeDispatch',
    key: 'bridgeDispatch',
    timeout: 30,
    // Leases; the dirty marks of the fleet rollout keys it wakes.
    leadingKeys: [['lease#*'], ['q#*']],
    grants: [
      ...logs('BridgeDispatchLogGroup'),
      // The registry's index (an Fn::Sub of the table's ARN), which also
      // lists the fleet rollout records.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an Fn::Sub string
      'dynamodb:Query ${StateTable.Arn}/index/registry',
      ...table('BatchGetItem', 'UpdateItem', 'GetItem'),
      'sqs:SendMessage WorkQueue',
      'lambda:InvokeFunction WatchBridgeLambdaFunction',
      'lambda:InvokeFunction EconomyBridgeLambdaFunction',
    ],
  },
  {
    id: 'WatchBridge',
    key: 'watchBridge',
    timeout: 900,
    leadingKeys: [BRIDGE_KEYS],
    grants: [...logs('WatchBridgeLogGroup'), ...bridgeGrants],
  },
  {
    id: 'EconomyBridge',
    key: 'economyBridge',
    timeout: 60,
    leadingKeys: [BRIDGE_KEYS],
    grants: [...logs('EconomyBridgeLogGroup'), ...bridgeGrants],
  },
  {
    id: 'Reconcile',
    key: 'reconcile',
    timeout: 60,
    leadingKeys: [
      [
        ...['budget#*', 'cluster#*', 'exp#*', 'fence#*', 'fenced#*'],
        ...['fight#*', 'fpb#*', 'health#*', 'q#*', 'slots#*'],
      ],
      // Fleet rollouts: records and members read and updated, members
      // also read in batches and removed.
      ['fleet#*', 'fleetm#*'],
      ['fleetm#*'],
    ],
    grants: [
      ...logs('ReconcileLogGroup'),
      ...table('GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'),
      ...table('BatchGetItem'),
      // The registry's index: a fleet sync lists the clusters.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an Fn::Sub string
      'dynamodb:Query ${StateTable.Arn}/index/registry',
      'sqs:ReceiveMessage WorkQueue',
      'sqs:DeleteMessage WorkQueue',
      'sqs:GetQueueAttributes WorkQueue',
      'sqs:ChangeMessageVisibility WorkQueue',
      'sqs:SendMessage WorkQueue',
      'sqs:SendMessage DelayQueue',
      `secretsmanager:GetSecretValue ${SECRETS}`,
      `sts:AssumeRole ${CLUSTER_ROLES}`,
      `eks:DescribeCluster ${EKS_CLUSTERS}`,
    ],
  },
  {
    id: 'Requeue',
    key: 'requeue',
    timeout: 30,
    leadingKeys: [['q#*']],
    grants: [
      ...logs('RequeueLogGroup'),
      ...table('GetItem', 'UpdateItem'),
      'sqs:ReceiveMessage DelayQueue',
      'sqs:DeleteMessage DelayQueue',
      'sqs:GetQueueAttributes DelayQueue',
      'sqs:SendMessage WorkQueue',
      'sqs:SendMessage DelayQueue',
    ],
  },
];
