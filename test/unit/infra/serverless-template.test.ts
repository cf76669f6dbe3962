import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#lib/config.js';
import {
  dashboardBody,
  logQueries,
  type MetricReference,
  metricReferences,
} from './dashboard-body.js';
import { describeMetric, emittedMetrics } from './emitted-metrics.js';
import {
  CLUSTER_ROLES,
  EKS_CLUSTERS,
  FUNCTION_SPECS,
  SECRETS,
} from './function-specs.js';
import {
  type CfnLintFinding,
  type CheckovReport,
  describeCfnLint,
  describeCheckov,
  installPythonTools,
  type LintSkips,
  readLintSkips,
  runCfnLint,
  runCheckov,
  withCheckovSkips,
} from './lint-template.js';
import {
  allStatements,
  asList,
  type CfnTemplate,
  deployedValue,
  eventSourceMappings,
  idsOfType,
  type PolicyStatement,
  packageTemplate,
  prop,
  referencedId,
  resolveConditions,
  resource,
  roleGrants,
  subString,
} from './package-template.js';

// Packaging bundles three functions with esbuild: about 5 s here, so the
// unit project runs it itself rather than trusting a stale template.
const PACKAGE_TIMEOUT_MS = 180_000;
// The first run on a machine installs checkov and cfn-lint from PyPI into a
// cached venv (about two minutes); later runs scan in about ten seconds.
const LINT_TIMEOUT_MS = 600_000;

const KMS_KEY = { Ref: 'KmsKeyArn' };
const ENI_POLICY = {
  'Fn::Sub':
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an Fn::Sub string
    'arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaENIManagementAccess',
};
const QUEUES = [
  'DelayDeadLetterQueue',
  'DelayQueue',
  'WorkDeadLetterQueue',
  'WorkQueue',
];
const LOG_GROUPS = FUNCTION_SPECS.map((f) => `${f.id}LogGroup`);
const FUNCTIONS = FUNCTION_SPECS.map((f) => `${f.id}LambdaFunction`);
const ROLES = FUNCTION_SPECS.map((f) => `${f.id}Role`);

describe('serverless.yml', () => {
  let outDir = '';
  let t: CfnTemplate = { Resources: {} };
  // Started beside packaging; awaited by the linters' beforeAll.
  let pythonTools: Promise<string> = Promise.resolve('');

  beforeAll(async () => {
    pythonTools = installPythonTools();
    // Handled where awaited; this only keeps a failure from being reported
    // as unhandled before then.
    pythonTools.catch(() => undefined);
    outDir = await mkdtemp(join(tmpdir(), 'dsr-package-'));
    t = await packageTemplate(outDir);
  }, PACKAGE_TIMEOUT_MS);

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('packages every resource of the stack', () => {
    // Act
    const count = (type: string) => idsOfType(t, type);
    // Assess
    expect(count('AWS::Lambda::Function')).toEqual([
      'BridgeDispatchLambdaFunction',
      'EconomyBridgeLambdaFunction',
      'ReconcileLambdaFunction',
      'RequeueLambdaFunction',
      'WatchBridgeLambdaFunction',
    ]);
    expect(count('AWS::SQS::Queue')).toEqual([
      'DelayDeadLetterQueue',
      'DelayQueue',
      'WorkDeadLetterQueue',
      'WorkQueue',
    ]);
    expect(count('AWS::DynamoDB::Table')).toEqual(['StateTable']);
    expect(count('AWS::Lambda::EventSourceMapping')).toHaveLength(2);
    expect(count('AWS::IAM::Role')).toEqual([
      'BridgeDispatchRole',
      'EconomyBridgeRole',
      'ReconcileRole',
      'RequeueRole',
      'WatchBridgeRole',
    ]);
    expect(count('AWS::IAM::Policy')).toEqual(['DataKeyPolicy']);
    expect(count('AWS::CloudWatch::Alarm')).toEqual([
      'BridgeCheckpointAgeAlarm',
      'BridgeDispatchErrorRateAlarm',
      'BridgeDispatchHeartbeatAlarm',
      'BridgeRunsDroppedAlarm',
      'ClusterUnhealthyAlarm',
      'ControllerConflictAlarm',
      'DelayDeadLetterQueueAlarm',
      'EconomyBridgeErrorRateAlarm',
      'FleetRolloutHaltedAlarm',
      'ReconcileErrorRateAlarm',
      'ReconcileHeartbeatAlarm',
      'RequeueErrorRateAlarm',
      'ThrottlesAlarm',
      'UnbridgedClusterAlarm',
      'WatchBridgeErrorRateAlarm',
      'WorkDeadLetterQueueAlarm',
      'WorkQueueAgeAlarm',
    ]);
    expect(count('AWS::SNS::Subscription')).toEqual(['AlarmEmailSubscription']);
    expect(count('AWS::CloudWatch::Dashboard')).toEqual(['OperatorDashboard']);
  });

  it.each(FUNCTION_SPECS)('writes a non-empty artifact for $key', async (f) => {
    // Act
    const artifact = await stat(join(outDir, `${f.key}.zip`));
    // Assess
    expect(artifact.size).toBeGreaterThan(0);
  });

  it('runs the bridge dispatcher every minute, one tick at a time, and nothing else on a schedule', () => {
    // Prepare
    const rules = idsOfType(t, 'AWS::Events::Rule');
    // Act
    const targets = rules.flatMap((id) =>
      asList(prop(t, id, 'Targets')).map((x) =>
        referencedId((x as { Arn: unknown }).Arn)
      )
    );
    // Assess
    expect(rules).toHaveLength(1);
    expect(prop(t, rules[0] ?? '', 'ScheduleExpression')).toBe(
      'rate(1 minute)'
    );
    expect(targets).toEqual(['BridgeDispatchLambdaFunction']);
    expect(
      prop(t, 'BridgeDispatchLambdaFunction', 'ReservedConcurrentExecutions')
    ).toBe(1);
  });

  it('gives watch turns and economy runs reservations of their own, and names both to the dispatcher (F4)', () => {
    // Prepare
    const vars = (
      prop(t, 'BridgeDispatchLambdaFunction', 'Environment') as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    const name = (id: string) => prop(t, id, 'FunctionName');
    // Act
    const reserved = ['WatchBridge', 'EconomyBridge'].map((f) =>
      prop(t, `${f}LambdaFunction`, 'ReservedConcurrentExecutions')
    );
    // Assess
    expect(reserved).toEqual([40, 50]);
    expect(vars.BRIDGE_WATCH_FUNCTION).toBe(name('WatchBridgeLambdaFunction'));
    expect(vars.BRIDGE_ECONOMY_FUNCTION).toBe(
      name('EconomyBridgeLambdaFunction')
    );
    expect(prop(t, 'WatchBridgeLambdaFunction', 'MemorySize')).toBe(512);
    expect(prop(t, 'EconomyBridgeLambdaFunction', 'MemorySize')).toBe(256);
  });

  it("tells the dispatcher the economy function's reservation, beyond which it spreads economy launches", () => {
    // Act
    const vars = (
      prop(t, 'BridgeDispatchLambdaFunction', 'Environment') as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    // Assess
    expect(Number(vars.BRIDGE_ECONOMY_CONCURRENCY)).toBe(
      prop(t, 'EconomyBridgeLambdaFunction', 'ReservedConcurrentExecutions')
    );
  });

  it('keys the table by pk alone with a sparse registry index, expires records on expiresAt, keeps backups', () => {
    // Act
    const p = resource(t, 'StateTable').Properties;
    // Assess
    expect(p).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'kind', AttributeType: 'S' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'registry',
          KeySchema: [{ AttributeName: 'kind', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(p?.KeySchema).toHaveLength(1);
  });

  it.each([
    ['WorkQueue', 'WorkDeadLetterQueue', true],
    ['DelayQueue', 'DelayDeadLetterQueue', false],
  ] as const)('redrives %s to %s after 5 receives', (queue, dlq, fifo) => {
    // Act
    const redrive = prop(t, queue, 'RedrivePolicy') as {
      deadLetterTargetArn: unknown;
      maxReceiveCount: number;
    };
    // Assess
    expect(referencedId(redrive.deadLetterTargetArn)).toBe(dlq);
    expect(redrive.maxReceiveCount).toBe(5);
    expect(prop(t, queue, 'FifoQueue') ?? false).toBe(fifo);
    expect(prop(t, dlq, 'FifoQueue') ?? false).toBe(fifo);
    expect(prop(t, dlq, 'MessageRetentionPeriod')).toBe(14 * 24 * 3600);
  });

  it('leaves deduplication to the sender on the work queue', () => {
    // Act
    const contentBased = prop(t, 'WorkQueue', 'ContentBasedDeduplication');
    // Assess: content-based deduplication would drop a key re-added within
    // five minutes of its previous message.
    expect(contentBased).toBe(false);
  });

  it.each([
    { queue: 'WorkQueue', fn: 'ReconcileLambdaFunction', scaling: 20 },
    { queue: 'DelayQueue', fn: 'RequeueLambdaFunction', scaling: 5 },
  ])('feeds $fn from $queue with partial batch responses', (want) => {
    // Act
    const esm = eventSourceMappings(t).find((m) => m.queue === want.queue);
    const p = esm?.properties;
    // Assess
    expect(esm?.fn).toBe(want.fn);
    expect(p?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(p?.BatchSize).toBeLessThanOrEqual(10);
    expect(p?.ScalingConfig).toEqual({ MaximumConcurrency: want.scaling });
  });

  it.each([
    { fn: 'ReconcileLambdaFunction', reserved: 20 },
    { fn: 'RequeueLambdaFunction', reserved: 5 },
  ])('reserves for $fn what its queue poller may use', (want) => {
    // Act
    const esm = eventSourceMappings(t).find((m) => m.fn === want.fn);
    const reserved = prop(t, want.fn, 'ReservedConcurrentExecutions');
    // Assess: less would throttle the poller (messages bounce back to the
    // queue), more would reserve what cannot be used.
    expect(reserved).toBe(want.reserved);
    expect(esm?.properties.ScalingConfig).toEqual({
      MaximumConcurrency: reserved,
    });
  });

  it("keeps each queue invisible for 6 × its consumer's timeout or more", () => {
    // Act
    const pairs = eventSourceMappings(t).map((m) => ({
      queue: m.queue,
      visibility: prop(t, m.queue, 'VisibilityTimeout') as number,
      timeout: prop(t, m.fn, 'Timeout') as number,
    }));
    // Assess
    expect(pairs.map((p) => p.queue).sort()).toEqual([
      'DelayQueue',
      'WorkQueue',
    ]);
    for (const p of pairs) {
      expect(p.visibility, p.queue).toBeGreaterThanOrEqual(6 * p.timeout);
    }
  });

  it.each(FUNCTION_SPECS)('runs $key on Node.js 22+ on arm64', (f) => {
    // Act
    const fn = resource(t, `${f.id}LambdaFunction`).Properties ?? {};
    const major = Number(/^nodejs(\d+)\.x$/.exec(String(fn.Runtime))?.[1]);
    // Assess
    expect(major).toBeGreaterThanOrEqual(22);
    expect(fn.Architectures).toEqual(['arm64']);
    expect(fn.Timeout).toBe(f.timeout);
  });

  it.each(FUNCTION_SPECS)(
    'gives $key an environment lib/config.ts accepts',
    (f) => {
      // Prepare
      const vars = (
        prop(t, `${f.id}LambdaFunction`, 'Environment') as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      // Act
      const env = Object.fromEntries(
        Object.entries(vars).map(([k, v]) => [k, deployedValue(t, v)])
      );
      // Assess
      expect(() => loadConfig(env)).not.toThrow();
      expect(env).toMatchObject({
        TABLE_NAME: 'StateTable',
        POWERTOOLS_METRICS_NAMESPACE: 'ServerlessDaemonSet',
        NODE_OPTIONS: '--enable-source-maps',
      });
      expect(env.POWERTOOLS_SERVICE_NAME).toBeTruthy();
    }
  );

  it('allows no wildcard action and no bare wildcard resource', () => {
    // Prepare: Deny statements only narrow access; osls's deployment bucket
    // policy denies `s3:*` to `*` without TLS, which is what it should do.
    const allows = allStatements(t).filter((s) => s.Effect === 'Allow');
    // Act
    const actions = allows.flatMap((s) => asList(s.Action).map(String));
    const resources = allows.flatMap((s) =>
      s.Resource === undefined ? [] : asList(s.Resource)
    );
    // Assess
    expect(allows.length).toBeGreaterThan(3);
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
    expect(resources).not.toContain('*');
    for (const r of resources) {
      const text = JSON.stringify(r);
      // Wildcards only as the tail of the two name prefixes this project
      // owns (cluster-credential secrets and per-cluster roles), and the
      // account's EKS clusters, which may be read to learn their endpoints.
      if (text.includes('*'))
        expect([SECRETS, CLUSTER_ROLES, EKS_CLUSTERS]).toContain(subString(r));
    }
    // A statement without Resource must be a trust policy (it has Principal).
    for (const s of allows) {
      if (s.Resource === undefined) expect(s.Principal).toBeDefined();
    }
  });

  it.each(FUNCTION_SPECS)('grants $key exactly its own permissions', (f) => {
    // Prepare
    const role = referencedId(prop(t, `${f.id}LambdaFunction`, 'Role'));
    // Act
    const grants = roleGrants(t, role ?? '');
    // Assess
    expect(role).toBe(`${f.id}Role`);
    expect(grants).toEqual([...f.grants].sort());
  });

  it.each(FUNCTION_SPECS)(
    "scopes $key's item rights to the item kinds its code uses",
    (f) => {
      // Prepare
      const policies = asList(prop(t, `${f.id}Role`, 'Policies')) as {
        PolicyDocument: {
          Statement: (PolicyStatement & {
            Condition?: Record<string, Record<string, unknown>>;
          })[];
        };
      }[];
      // Act: every Allow on the table itself (the registry index aside).
      const scopes = policies
        .flatMap((p) => p.PolicyDocument.Statement)
        .filter(
          (st) =>
            st.Effect === 'Allow' &&
            asList(st.Resource).some((r) => referencedId(r) === 'StateTable')
        )
        .map((st) => st.Condition?.['ForAllValues:StringLike']);
      // Assess
      expect(scopes).toEqual(
        f.leadingKeys.map((keys) => ({ 'dynamodb:LeadingKeys': keys }))
      );
    }
  );

  it.each(FUNCTION_SPECS)(
    'denies $key any write to the registry (cluster# items, F14)',
    (f) => {
      // Act
      const policies = asList(prop(t, `${f.id}Role`, 'Policies')) as {
        PolicyDocument: {
          Statement: (PolicyStatement & { Condition?: unknown })[];
        };
      }[];
      const denies = policies
        .flatMap((p) => p.PolicyDocument.Statement)
        .filter((st) => st.Effect === 'Deny');
      // Assess
      expect(denies).toEqual([
        expect.objectContaining({
          Sid: 'NoRegistryWrites',
          Action: [
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:DeleteItem',
            'dynamodb:BatchWriteItem',
          ],
          Condition: {
            'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['cluster#*'] },
          },
        }),
      ]);
    }
  );

  it('alarms on one message in either dead-letter queue', () => {
    // Act
    const watched = [
      'WorkDeadLetterQueueAlarm',
      'DelayDeadLetterQueueAlarm',
    ].map((id) => {
      const p = resource(t, id).Properties ?? {};
      const dims = p.Dimensions as { Value: unknown }[];
      return [referencedId(dims[0]?.Value), p.Threshold, p.ComparisonOperator];
    });
    // Assess
    expect(watched).toEqual([
      ['WorkDeadLetterQueue', 1, 'GreaterThanOrEqualToThreshold'],
      ['DelayDeadLetterQueue', 1, 'GreaterThanOrEqualToThreshold'],
    ]);
  });

  it.each(FUNCTION_SPECS)(
    'alarms when $key fails over 5 % of invocations',
    (f) => {
      // Prepare
      const p = resource(t, `${f.id}ErrorRateAlarm`).Properties ?? {};
      const metrics = p.Metrics as {
        Id: string;
        Expression?: string;
        MetricStat?: {
          Metric: { MetricName: string; Dimensions: { Value: unknown }[] };
          Period: number;
        };
      }[];
      // Act
      const inputs = metrics
        .filter((m) => m.MetricStat)
        .map((m) => [
          m.MetricStat?.Metric.MetricName,
          referencedId(m.MetricStat?.Metric.Dimensions[0]?.Value),
          m.MetricStat?.Period,
        ]);
      // Assess
      expect(inputs).toEqual([
        ['Errors', `${f.id}LambdaFunction`, 300],
        ['Invocations', `${f.id}LambdaFunction`, 300],
      ]);
      expect(metrics.find((m) => m.Expression)?.Expression).toBe(
        'IF(invocations > 0, 100 * errors / invocations, 0)'
      );
      expect([p.Threshold, p.ComparisonOperator]).toEqual([
        5,
        'GreaterThanThreshold',
      ]);
    }
  );

  it('keeps function logs for 30 days', () => {
    // Act
    const retention = LOG_GROUPS.map((id) => prop(t, id, 'RetentionInDays'));
    // Assess
    expect(retention).toEqual(LOG_GROUPS.map(() => 30));
    expect(retention).toHaveLength(5);
  });

  it('keeps the deployment bucket private, encrypted, versioned and small', () => {
    // Act
    const p = resource(t, 'ServerlessDeploymentBucket').Properties;
    // Assess
    expect(p).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
        ],
      },
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: {
        Rules: [
          {
            Status: 'Enabled',
            NoncurrentVersionExpiration: { NoncurrentDays: 30 },
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          },
        ],
      },
    });
  });

  it('alarms on a halted fleet rollout', () => {
    // Act
    const alarm = resource(t, 'FleetRolloutHaltedAlarm').Properties ?? {};
    // Assess
    expect(alarm).toMatchObject({
      Namespace: 'ServerlessDaemonSet',
      MetricName: 'FleetRollouts',
      Dimensions: [
        { Name: 'service', Value: 'reconcile' },
        { Name: 'phase', Value: 'Halted' },
      ],
      Statistic: 'Sum',
      Threshold: 1,
      AlarmActions: [{ Ref: 'AlarmTopic' }],
    });
  });

  it('alarms on a fenced or unhealthy cluster (fleet-wide metrics of reconcile), an unbridged cluster, throttles and work waiting 5 minutes', () => {
    // Act
    const alarm = (id: string) => resource(t, id).Properties ?? {};
    // Assess
    for (const [id, metric] of [
      ['ControllerConflictAlarm', 'ControllerConflicts'],
      ['ClusterUnhealthyAlarm', 'ClusterUnhealthy'],
    ] as const) {
      expect(alarm(id)).toMatchObject({
        Namespace: 'ServerlessDaemonSet',
        MetricName: metric,
        Dimensions: [{ Name: 'service', Value: 'reconcile' }],
        Threshold: 1,
        AlarmActions: [{ Ref: 'AlarmTopic' }],
      });
    }
    const unbridged = alarm('UnbridgedClusterAlarm').Metrics as {
      MetricStat?: { Metric: { MetricName: string; Dimensions: unknown } };
    }[];
    expect(
      unbridged.flatMap((m) =>
        m.MetricStat ? [m.MetricStat.Metric.MetricName] : []
      )
    ).toEqual([
      'BridgeFailures',
      'InvalidClusterRecords',
      'BridgeLaunchFailures',
    ]);
    expect(unbridged[0]?.MetricStat?.Metric.Dimensions).toEqual([
      { Name: 'service', Value: 'watch-bridge' },
    ]);
    const throttles = alarm('ThrottlesAlarm').Metrics as {
      MetricStat?: {
        Metric: { MetricName: string; Dimensions: { Value: unknown }[] };
      };
    }[];
    expect(
      throttles
        .flatMap((m) =>
          m.MetricStat
            ? [
                `${m.MetricStat.Metric.MetricName} ${referencedId(m.MetricStat.Metric.Dimensions[0]?.Value)}`,
              ]
            : []
        )
        .sort()
    ).toEqual(
      [
        ...FUNCTIONS.map((f) => `Throttles ${f}`),
        'ReadThrottleEvents StateTable',
        'WriteThrottleEvents StateTable',
      ].sort()
    );
    expect(alarm('WorkQueueAgeAlarm')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 300,
    });
    expect(resource(t, 'AlarmEmailSubscription')).toMatchObject({
      Condition: 'HasAlarmEmail',
      Properties: { Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' } },
    });
  });

  it.each([
    {
      id: 'BridgeDispatchHeartbeatAlarm',
      metric: 'RegisteredClusters',
      service: 'watch-bridge',
      stat: 'SampleCount',
      period: 300,
      comparison: 'LessThanThreshold',
      threshold: 1,
    },
    {
      id: 'BridgeCheckpointAgeAlarm',
      metric: 'BridgeCheckpointAge',
      service: 'watch-bridge',
      stat: 'Maximum',
      period: 300,
      comparison: 'GreaterThanThreshold',
      threshold: 180,
    },
    {
      id: 'ReconcileHeartbeatAlarm',
      metric: 'Syncs',
      service: 'reconcile',
      stat: 'SampleCount',
      period: 3_600,
      comparison: 'LessThanThreshold',
      threshold: 1,
    },
  ])(
    'breaches $id when $metric goes missing for two periods of $period s',
    (want) => {
      // Prepare
      const emitted = new Set(emittedMetrics().metrics.map(describeMetric));
      // Act
      const p = resource(t, want.id).Properties ?? {};
      // Assess
      expect(p).toMatchObject({
        Namespace: 'ServerlessDaemonSet',
        MetricName: want.metric,
        Dimensions: [{ Name: 'service', Value: want.service }],
        Statistic: want.stat,
        Period: want.period,
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
        Threshold: want.threshold,
        ComparisonOperator: want.comparison,
        TreatMissingData: 'breaching',
        AlarmActions: [{ Ref: 'AlarmTopic' }],
        OKActions: [{ Ref: 'AlarmTopic' }],
      });
      expect(emitted).toContain(
        describeMetric({
          namespace: 'ServerlessDaemonSet',
          name: want.metric,
          dimensions: ['service'],
          service: want.service,
        })
      );
    }
  );

  it('sizes the sync heartbeat by the resync period the bridges run with', () => {
    // Act
    const resync = FUNCTION_SPECS.map((f) =>
      Number(
        (
          prop(t, `${f.id}LambdaFunction`, 'Environment') as {
            Variables: Record<string, unknown>;
          }
        ).Variables.BRIDGE_RESYNC_SECONDS
      )
    );
    // Assess: any two periods of the resync's length hold a resync.
    expect(new Set(resync)).toEqual(
      new Set([prop(t, 'ReconcileHeartbeatAlarm', 'Period')])
    );
  });

  it('treats missing data as breaching in the heartbeats alone', () => {
    // Act
    const breaching = idsOfType(t, 'AWS::CloudWatch::Alarm').filter(
      (id) => prop(t, id, 'TreatMissingData') === 'breaching'
    );
    // Assess: the others count bad events, and silence is their healthy state.
    expect(breaching).toEqual([
      'BridgeCheckpointAgeAlarm',
      'BridgeDispatchHeartbeatAlarm',
      'ReconcileHeartbeatAlarm',
    ]);
  });

  it('alarms on bridge runs Lambda dropped unrun, in two 5-minute periods running', () => {
    // Prepare
    const p = resource(t, 'BridgeRunsDroppedAlarm').Properties ?? {};
    const metrics = p.Metrics as {
      Expression?: string;
      MetricStat?: {
        Metric: { MetricName: string; Dimensions: { Value: unknown }[] };
        Period: number;
        Stat: string;
      };
    }[];
    // Act
    const inputs = metrics.flatMap((m) =>
      m.MetricStat
        ? [
            [
              m.MetricStat.Metric.MetricName,
              referencedId(m.MetricStat.Metric.Dimensions[0]?.Value),
              m.MetricStat.Period,
              m.MetricStat.Stat,
            ],
          ]
        : []
    );
    // Assess
    expect(inputs).toEqual([
      ['AsyncEventsDropped', 'WatchBridgeLambdaFunction', 300, 'Sum'],
      ['AsyncEventsDropped', 'EconomyBridgeLambdaFunction', 300, 'Sum'],
    ]);
    expect(metrics.find((m) => m.Expression)?.Expression).toBe(
      'FILL(watchBridge, 0) + FILL(economyBridge, 0)'
    );
    expect(p).toMatchObject({
      EvaluationPeriods: 2,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('outputs the table, the queues, the role ARNs and the alarm topic', () => {
    // Act
    const outputs =
      (t as CfnTemplate & { Outputs?: Record<string, { Value: unknown }> })
        .Outputs ?? {};
    // Assess
    expect(
      Object.fromEntries(
        [
          'StateTableName',
          'WorkQueueUrl',
          'WorkDeadLetterQueueUrl',
          'DelayQueueUrl',
          'BridgeDispatchRoleArn',
          'WatchBridgeRoleArn',
          'EconomyBridgeRoleArn',
          'ReconcileRoleArn',
          'AlarmTopicArn',
        ].map((k) => [k, referencedId(outputs[k]?.Value)])
      )
    ).toEqual({
      StateTableName: 'StateTable',
      WorkQueueUrl: 'WorkQueue',
      WorkDeadLetterQueueUrl: 'WorkDeadLetterQueue',
      DelayQueueUrl: 'DelayQueue',
      BridgeDispatchRoleArn: 'BridgeDispatchRole',
      WatchBridgeRoleArn: 'WatchBridgeRole',
      EconomyBridgeRoleArn: 'EconomyBridgeRole',
      ReconcileRoleArn: 'ReconcileRole',
      AlarmTopicArn: 'AlarmTopic',
    });
  });

  it('takes the KMS key, the VPC and the alarm email as optional parameters, off by default, and the dashboard, on', () => {
    // Act
    const defaults = Object.entries(t.Parameters ?? {}).map(([k, p]) => [
      k,
      p.Type,
      p.Default,
    ]);
    // Assess
    expect(defaults).toEqual([
      ['KmsKeyArn', 'String', ''],
      ['VpcSubnetIds', 'CommaDelimitedList', ''],
      ['VpcSecurityGroupIds', 'CommaDelimitedList', ''],
      ['AlarmEmail', 'String', ''],
      ['Dashboard', 'String', 'true'],
    ]);
    expect(t.Parameters?.Dashboard?.AllowedValues).toEqual(['true', 'false']);
    expect(t.Conditions).toEqual({
      HasKmsKey: { 'Fn::Not': [{ 'Fn::Equals': [KMS_KEY, ''] }] },
      HasAlarmEmail: {
        'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmEmail' }, ''] }],
      },
      HasVpc: {
        'Fn::Not': [
          {
            'Fn::Equals': [{ 'Fn::Join': ['', { Ref: 'VpcSubnetIds' }] }, ''],
          },
        ],
      },
      HasDashboard: { 'Fn::Equals': [{ Ref: 'Dashboard' }, 'true'] },
    });
  });

  describe('without the options', () => {
    const deployed = () =>
      resolveConditions(t, {
        HasKmsKey: false,
        HasVpc: false,
        HasAlarmEmail: false,
        HasDashboard: true,
      });

    it('encrypts with AWS-owned and service-managed keys only', () => {
      // Act
      const d = deployed();
      const p = (id: string) => d.Resources[id]?.Properties ?? {};
      // Assess
      expect(p('StateTable').SSESpecification).toEqual({ SSEEnabled: false });
      for (const q of QUEUES) {
        expect(p(q).SqsManagedSseEnabled, q).toBe(true);
        expect(p(q).KmsMasterKeyId, q).toBeUndefined();
      }
      expect(p('AlarmTopic').KmsMasterKeyId).toBeUndefined();
      for (const g of LOG_GROUPS) expect(p(g).KmsKeyId, g).toBeUndefined();
      for (const f of FUNCTIONS) expect(p(f).KmsKeyArn, f).toBeUndefined();
      expect(d.Resources.DataKeyPolicy).toBeUndefined();
    });

    it('runs the functions outside any VPC', () => {
      // Act
      const d = deployed();
      // Assess
      for (const f of FUNCTIONS) {
        expect(d.Resources[f]?.Properties?.VpcConfig, f).toBeUndefined();
      }
      for (const r of ROLES) {
        expect(
          d.Resources[r]?.Properties?.ManagedPolicyArns,
          r
        ).toBeUndefined();
      }
    });
  });

  describe('with a customer-managed KMS key', () => {
    const deployed = () =>
      resolveConditions(t, {
        HasKmsKey: true,
        HasVpc: false,
        HasAlarmEmail: false,
        HasDashboard: true,
      });

    it('encrypts the table, queues, topic, logs and environments with it', () => {
      // Act
      const d = deployed();
      const p = (id: string) => d.Resources[id]?.Properties ?? {};
      // Assess
      expect(p('StateTable').SSESpecification).toEqual({
        SSEEnabled: true,
        SSEType: 'KMS',
        KMSMasterKeyId: KMS_KEY,
      });
      for (const q of QUEUES) {
        expect(p(q).KmsMasterKeyId, q).toEqual(KMS_KEY);
        expect(p(q).SqsManagedSseEnabled, q).toBeUndefined();
      }
      expect(p('AlarmTopic').KmsMasterKeyId).toEqual(KMS_KEY);
      for (const g of LOG_GROUPS) expect(p(g).KmsKeyId, g).toEqual(KMS_KEY);
      for (const f of FUNCTIONS) expect(p(f).KmsKeyArn, f).toEqual(KMS_KEY);
    });

    it("lets every function's role use that key, and no other", () => {
      // Act
      const policy = deployed().Resources.DataKeyPolicy?.Properties ?? {};
      const statements = (policy.PolicyDocument as { Statement: unknown[] })
        .Statement;
      // Assess
      expect((policy.Roles as unknown[]).map(referencedId)).toEqual(ROLES);
      expect(statements).toEqual([
        {
          Sid: 'DataKey',
          Effect: 'Allow',
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: KMS_KEY,
        },
      ]);
    });
  });

  describe('with a VPC', () => {
    const deployed = () =>
      resolveConditions(t, {
        HasKmsKey: false,
        HasVpc: true,
        HasAlarmEmail: false,
        HasDashboard: true,
      });

    it('places every function in the given subnets and security groups', () => {
      // Act
      const d = deployed();
      // Assess
      for (const f of FUNCTIONS) {
        expect(d.Resources[f]?.Properties?.VpcConfig, f).toEqual({
          SubnetIds: { Ref: 'VpcSubnetIds' },
          SecurityGroupIds: { Ref: 'VpcSecurityGroupIds' },
        });
      }
    });

    it('grants each role only the ENI management Lambda needs there', () => {
      // Act
      const d = deployed();
      // Assess
      for (const r of ROLES) {
        expect(d.Resources[r]?.Properties?.ManagedPolicyArns, r).toEqual([
          ENI_POLICY,
        ]);
      }
    });
  });

  describe('the operator dashboard', () => {
    const DASHBOARD = 'OperatorDashboard';
    const references = (): MetricReference[] =>
      metricReferences(dashboardBody(t, DASHBOARD));
    const ofNamespace = (namespace: string) =>
      references().filter((r) => r.namespace === namespace);
    const namesBy = (namespace: string, dimension: string, value: string) =>
      ofNamespace(namespace)
        .filter((r) => r.dimensions[dimension] === value)
        .map((r) => r.name);

    it.each([
      { dashboard: true, want: [DASHBOARD] },
      { dashboard: false, want: [] },
    ])(
      'deploys the dashboard only when Dashboard is "$dashboard"',
      ({ dashboard, want }) => {
        // Act
        const d = resolveConditions(t, {
          HasKmsKey: false,
          HasVpc: false,
          HasAlarmEmail: false,
          HasDashboard: dashboard,
        });
        // Assess
        expect(idsOfType(d, 'AWS::CloudWatch::Dashboard')).toEqual(want);
        expect(resource(t, DASHBOARD).Condition).toBe('HasDashboard');
        expect(
          (
            t as CfnTemplate & {
              Outputs: Record<string, { Condition?: string }>;
            }
          ).Outputs.DashboardUrl?.Condition
        ).toBe('HasDashboard');
      }
    );

    it('graphs only metrics the code emits, with the dimensions it emits them with', () => {
      // Prepare
      const emitted = new Set(emittedMetrics().metrics.map(describeMetric));
      // Act
      const graphed = ofNamespace('ServerlessDaemonSet').map((r) =>
        describeMetric({
          namespace: r.namespace,
          name: r.name,
          dimensions: Object.keys(r.dimensions).sort(),
          service: r.dimensions.service ?? '',
        })
      );
      // Assess
      expect(graphed.length).toBeGreaterThan(20);
      expect(graphed.filter((m) => !emitted.has(m))).toEqual([]);
    });

    it.each([
      { name: 'BridgeCheckpointAge', stat: 'Maximum' },
      { name: 'Syncs', stat: 'Sum' },
      { name: 'SyncErrors', stat: 'Sum' },
      { name: 'QueueLag', stat: 'p99' },
      { name: 'PodsCreated', stat: 'Sum' },
      { name: 'PodsDeleted', stat: 'Sum' },
      { name: 'ControllerConflicts', stat: 'Sum' },
      { name: 'ClusterUnhealthy', stat: 'Sum' },
    ])(
      'draws $name ($stat) per cluster by SEARCH, and fleet-wide, in one panel',
      ({ name, stat }) => {
        // Act
        const drawn = ofNamespace('ServerlessDaemonSet').filter(
          (r) => r.name === name && r.stat === stat
        );
        const dims = (search: boolean) =>
          drawn
            .filter((r) => r.search === search)
            .map((r) => Object.keys(r.dimensions).sort());
        // Assess
        expect(dims(true)).toEqual([['cluster', 'service']]);
        expect(dims(false)).toEqual([['service']]);
        expect(new Set(drawn.map((r) => r.widget)).size).toBe(1);
      }
    );

    it('shows the depth and the oldest message of every queue, the dead-letter queues included', () => {
      // Act
      const sqs = ofNamespace('AWS/SQS');
      // Assess
      expect(
        [...new Set(sqs.map((r) => r.dimensions.QueueName))].sort()
      ).toEqual(QUEUES.map((q) => `${q}.QueueName`));
      for (const q of QUEUES) {
        expect(namesBy('AWS/SQS', 'QueueName', `${q}.QueueName`), q).toEqual(
          expect.arrayContaining([
            'ApproximateNumberOfMessagesVisible',
            'ApproximateAgeOfOldestMessage',
          ])
        );
      }
    });

    it("shows every function's concurrency, with its reservation, and its throttles", () => {
      // Act
      const concurrency = ofNamespace('AWS/Lambda').filter(
        (r) => r.name === 'ConcurrentExecutions'
      );
      const reserved = concurrency.map((r) => [
        r.dimensions.FunctionName,
        Number(/\(reserved (\d+)\)/.exec(r.label ?? '')?.[1]),
      ]);
      // Assess
      expect(Object.fromEntries(reserved)).toEqual(
        Object.fromEntries(
          FUNCTIONS.map((f) => [f, prop(t, f, 'ReservedConcurrentExecutions')])
        )
      );
      for (const f of FUNCTIONS) {
        expect(namesBy('AWS/Lambda', 'FunctionName', f), f).toEqual(
          expect.arrayContaining(['ConcurrentExecutions', 'Throttles'])
        );
      }
    });

    it("shows the state table's throttles, its registry index's included", () => {
      // Prepare
      const indexes = (
        prop(t, 'StateTable', 'GlobalSecondaryIndexes') as {
          IndexName: string;
        }[]
      ).map((i) => i.IndexName);
      // Act
      const dynamo = ofNamespace('AWS/DynamoDB');
      // Assess
      expect(new Set(dynamo.map((r) => r.dimensions.TableName))).toEqual(
        new Set(['StateTable'])
      );
      expect(
        dynamo.map((r) =>
          [r.name, r.dimensions.GlobalSecondaryIndexName ?? 'table'].join(' ')
        )
      ).toEqual(
        ['table', ...indexes].flatMap((on) => [
          `ReadThrottleEvents ${on}`,
          `WriteThrottleEvents ${on}`,
        ])
      );
    });

    it('lists every alarm of the stack', () => {
      // Act
      const listed = dashboardBody(t, DASHBOARD)
        .widgets.filter((w) => w.type === 'alarm')
        .flatMap((w) => w.properties.alarms ?? [])
        .map((arn) => arn.replace(/\.Arn$/, ''));
      // Assess
      expect(listed.sort()).toEqual(idsOfType(t, 'AWS::CloudWatch::Alarm'));
    });

    it('splits by cluster from the reconcile logs, reading only fields its EMF blobs carry', () => {
      // Prepare
      const fields = emittedMetrics().reconcileFields;
      // Act
      const queries = logQueries(dashboardBody(t, DASHBOARD));
      // Assess
      expect(queries.map((q) => q.sources)).toEqual([['ReconcileLogGroup']]);
      expect(resource(t, 'ReconcileLogGroup').Type).toBe('AWS::Logs::LogGroup');
      expect(queries[0]?.fields).toContain('cluster');
      expect(queries[0]?.fields.filter((f) => !fields.has(f))).toEqual([]);
    });

    it("substitutes only the region and the stack's own resources", () => {
      // Act
      const subs = dashboardBody(t, DASHBOARD).substitutions;
      // Assess
      expect(subs.length).toBeGreaterThan(30);
      for (const s of subs) {
        if (s !== 'AWS::Region') {
          expect(t.Resources[s.split('.')[0] ?? ''], s).toBeDefined();
        }
      }
    });
  });

  describe('checkov and cfn-lint', () => {
    let skips: LintSkips = { checkov: [], 'cfn-lint': [] };
    let checkov: CheckovReport = {
      passed: [],
      failed: [],
      skipped: [],
      parsingErrors: [],
    };
    let cfnLint: CfnLintFinding[] = [];

    beforeAll(async () => {
      const bin = await pythonTools;
      skips = await readLintSkips();
      const raw = join(outDir, 'cloudformation-template-update-stack.json');
      const withSkips = join(outDir, 'checkov-template.json');
      await writeFile(
        withSkips,
        JSON.stringify(withCheckovSkips(t, skips.checkov), null, 2)
      );
      [checkov, cfnLint] = await Promise.all([
        runCheckov(bin, withSkips),
        runCfnLint(bin, raw),
      ]);
      const level = (l: CfnLintFinding['Level']) =>
        cfnLint.filter((f) => f.Level === l).length;
      console.info(
        `checkov: ${checkov.passed.length} passed, ` +
          `${checkov.skipped.length} skipped, ` +
          `${checkov.failed.length} failed; cfn-lint: ` +
          `${level('Error')} errors, ${level('Warning')} warnings, ` +
          `${level('Informational')} informational`
      );
    }, LINT_TIMEOUT_MS);

    it('passes every checkov check that infra/lint-skips.yaml does not skip', () => {
      // Assess
      expect(checkov.parsingErrors).toEqual([]);
      expect(checkov.failed.map(describeCheckov)).toEqual([]);
    });

    it('runs checkov on every resource that holds data, code or grants', () => {
      // Prepare
      const checked = new Set(
        [...checkov.passed, ...checkov.skipped].map((f) =>
          f.resource.split('.').at(-1)
        )
      );
      // Act: a resource checkov could not read would have no results.
      const unchecked = [
        ...FUNCTIONS,
        ...LOG_GROUPS,
        ...QUEUES,
        ...ROLES,
        'StateTable',
        'AlarmTopic',
        'DataKeyPolicy',
        'ServerlessDeploymentBucket',
      ].filter((id) => !checked.has(id));
      // Assess
      expect(unchecked).toEqual([]);
    });

    it('skips exactly the checkov findings listed, with their reasons', () => {
      // Prepare
      const listed = skips.checkov.flatMap((s) =>
        s.resources.map((id) => `${s.id} ${id}: ${s.reason}`)
      );
      // Act
      const skipped = checkov.skipped.map(
        (f) =>
          `${f.check_id} ${f.resource.split('.').at(-1)}: ${f.check_result.suppress_comment}`
      );
      // Assess
      expect(skipped.sort()).toEqual(listed.sort());
    });

    it('reports no cfn-lint finding but the ones listed', () => {
      // Prepare
      const listed = skips['cfn-lint'].flatMap((s) =>
        s.resources.map((id) => `${s.id} Resources/${id}`)
      );
      // Act
      const found = cfnLint.map((f) =>
        describeCfnLint(f).split('/').slice(0, 2).join('/')
      );
      // Assess
      expect(cfnLint.filter((f) => f.Level === 'Error')).toEqual([]);
      expect(found.sort()).toEqual(listed.sort());
    });

    it('gives every skip a one-line reason', () => {
      // Act
      const reasons = [...skips.checkov, ...skips['cfn-lint']].map(
        (s) => s.reason
      );
      // Assess
      expect(reasons.length).toBeGreaterThan(0);
      for (const r of reasons) expect(r).toMatch(/^[^\n]{20,200}$/);
    });
  });
});
