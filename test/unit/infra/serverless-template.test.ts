import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#lib/config.js';
import { CLUSTER_ROLES, FUNCTION_SPECS, SECRETS } from './function-specs.js';
import {
  allStatements,
  asList,
  type CfnTemplate,
  deployedValue,
  eventSourceMappings,
  idsOfType,
  packageTemplate,
  prop,
  referencedId,
  resource,
  roleGrants,
  subString,
} from './package-template.js';

// Packaging bundles three functions with esbuild: about 5 s here, so the
// unit project runs it itself rather than trusting a stale template.
const PACKAGE_TIMEOUT_MS = 180_000;

describe('serverless.yml', () => {
  let outDir = '';
  let t: CfnTemplate = { Resources: {} };

  beforeAll(async () => {
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
      'ReconcileRole',
      'RequeueRole',
      'WatchBridgeRole',
    ]);
    expect(count('AWS::CloudWatch::Alarm')).toEqual([
      'DelayDeadLetterQueueAlarm',
      'ReconcileErrorRateAlarm',
      'RequeueErrorRateAlarm',
      'WatchBridgeErrorRateAlarm',
      'WorkDeadLetterQueueAlarm',
    ]);
  });

  it.each(FUNCTION_SPECS)('writes a non-empty artifact for $key', async (f) => {
    // Act
    const artifact = await stat(join(outDir, `${f.key}.zip`));
    // Assess
    expect(artifact.size).toBeGreaterThan(0);
  });

  it('runs the watch-bridge every minute, one tick at a time', () => {
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
    expect(targets).toEqual(['WatchBridgeLambdaFunction']);
    expect(
      prop(t, 'WatchBridgeLambdaFunction', 'ReservedConcurrentExecutions')
    ).toBe(2);
  });

  it('keys the table by pk alone, expires records on expiresAt, keeps backups', () => {
    // Act
    const p = resource(t, 'StateTable').Properties;
    // Assess
    expect(p).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
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
    { queue: 'DelayQueue', fn: 'RequeueLambdaFunction', scaling: undefined },
  ])('feeds $fn from $queue with partial batch responses', (want) => {
    // Act
    const esm = eventSourceMappings(t).find((m) => m.queue === want.queue);
    const p = esm?.properties;
    // Assess
    expect(esm?.fn).toBe(want.fn);
    expect(p?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(p?.BatchSize).toBeLessThanOrEqual(10);
    expect(p?.ScalingConfig).toEqual(
      want.scaling && { MaximumConcurrency: want.scaling }
    );
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
      // owns: cluster-credential secrets and per-cluster roles.
      if (text.includes('*'))
        expect([SECRETS, CLUSTER_ROLES]).toContain(subString(r));
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
});
