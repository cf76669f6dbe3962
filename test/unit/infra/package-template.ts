/**
 * Packages the service with osls (offline, no AWS credentials) and reads the
 * CloudFormation template it writes, plus the few template walks the
 * template test needs.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The repository root (serverless.yml lives there). */
export const REPO_ROOT = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..'
);

/** One resource of a CloudFormation template. */
export interface CfnResource {
  Type: string;
  Condition?: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  Metadata?: Record<string, unknown>;
}

/** The parts of a CloudFormation template the test reads. */
export interface CfnTemplate {
  Parameters?: Record<string, Record<string, unknown>>;
  Conditions?: Record<string, unknown>;
  Resources: Record<string, CfnResource>;
}

/** One statement of an IAM policy document, as written in a template. */
export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: unknown;
  Principal?: unknown;
}

/**
 * Runs `osls package` on the repository into `outDir` and returns the
 * update-stack template. `--package` keeps the output away from the
 * `.serverless/` of `npm run package`.
 */
export const packageTemplate = async (
  outDir: string,
  stage = 'test'
): Promise<CfnTemplate> => {
  const osls = join(REPO_ROOT, 'node_modules', 'osls', 'bin', 'serverless.js');
  try {
    await promisify(execFile)(
      process.execPath,
      [osls, 'package', '--stage', stage, '--package', outDir],
      { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 }
    );
  } catch (e) {
    // osls prints its error on stdout; execFile's message has only stderr.
    const { stdout = '', stderr = '' } = e as {
      stdout?: string;
      stderr?: string;
    };
    throw new Error(`osls package failed:\n${stdout}\n${stderr}`.trim(), {
      cause: e,
    });
  }
  const text = await readFile(
    join(outDir, 'cloudformation-template-update-stack.json'),
    'utf8'
  );
  return JSON.parse(text) as CfnTemplate;
};

/** Returns the resource `logicalId`; throws when the template lacks it. */
export const resource = (t: CfnTemplate, logicalId: string): CfnResource => {
  const r = t.Resources[logicalId];
  if (!r) throw new Error(`template has no resource ${logicalId}`);
  return r;
};

/** Returns the property `name` of resource `logicalId`. */
export const prop = (
  t: CfnTemplate,
  logicalId: string,
  name: string
): unknown => resource(t, logicalId).Properties?.[name];

/** Returns the logical ids of every resource of `type`, sorted. */
export const idsOfType = (t: CfnTemplate, type: string): string[] =>
  Object.entries(t.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id)
    .sort();

/**
 * Returns the logical id named by `{ Ref: id }` or `{ 'Fn::GetAtt': [id, …] }`;
 * undefined for anything else.
 */
export const referencedId = (value: unknown): string | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { Ref?: unknown; 'Fn::GetAtt'?: unknown };
  if (typeof v.Ref === 'string') return v.Ref;
  const att = v['Fn::GetAtt'];
  if (Array.isArray(att) && typeof att[0] === 'string') return att[0];
  return undefined;
};

/** Returns `value` as an array (IAM allows a single item or a list). */
export const asList = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : [value];

/**
 * Returns every policy statement in the template: role policies, assume-role
 * documents and resource policies (S3 bucket, SQS queue, SNS topic).
 */
export const allStatements = (t: CfnTemplate): PolicyStatement[] => {
  const documents: unknown[] = [];
  for (const r of Object.values(t.Resources)) {
    const p = r.Properties ?? {};
    documents.push(p.PolicyDocument, p.AssumeRolePolicyDocument);
    for (const policy of asList(p.Policies ?? [])) {
      documents.push((policy as { PolicyDocument?: unknown }).PolicyDocument);
    }
  }
  return documents
    .filter((d): d is { Statement: unknown } => d != null)
    .flatMap((d) => asList(d.Statement) as PolicyStatement[]);
};

/**
 * Returns what one role allows as sorted `action resource` lines, a resource
 * being the logical id it references or its `Fn::Sub` string.
 */
export const roleGrants = (t: CfnTemplate, roleId: string): string[] => {
  const policies = asList(prop(t, roleId, 'Policies') ?? []) as {
    PolicyDocument: { Statement: PolicyStatement[] };
  }[];
  const grants = new Set<string>();
  for (const policy of policies) {
    for (const s of policy.PolicyDocument.Statement) {
      if (s.Effect !== 'Allow') continue;
      for (const action of asList(s.Action)) {
        for (const r of asList(s.Resource)) {
          grants.add(`${String(action)} ${describeResource(r)}`);
        }
      }
    }
  }
  return [...grants].sort();
};

const describeResource = (r: unknown): string => {
  const id = referencedId(r);
  if (id) return id;
  const sub = subString(r);
  return typeof sub === 'string' ? sub : JSON.stringify(r);
};

/** Returns the string of `{ 'Fn::Sub': string }`, else `value` itself. */
export const subString = (value: unknown): unknown =>
  typeof value === 'object' && value !== null && 'Fn::Sub' in value
    ? (value as { 'Fn::Sub': unknown })['Fn::Sub']
    : value;

/** Returns the SQS event source mappings as queue and function logical ids. */
export const eventSourceMappings = (t: CfnTemplate) =>
  idsOfType(t, 'AWS::Lambda::EventSourceMapping').map((id) => {
    const properties = resource(t, id).Properties ?? {};
    return {
      queue: referencedId(properties.EventSourceArn) ?? '',
      fn: referencedId(properties.FunctionName) ?? '',
      properties,
    };
  });

/**
 * Returns an environment value as it would be deployed, as far as
 * loadConfig can tell: a queue's Ref is its URL, any other Ref its logical id.
 */
export const deployedValue = (t: CfnTemplate, value: unknown): string => {
  const id = referencedId(value);
  if (id === undefined) return String(value);
  const queueName = t.Resources[id]?.Properties?.QueueName;
  return typeof queueName === 'string'
    ? `https://sqs.us-east-1.amazonaws.com/123456789012/${queueName}`
    : id;
};

const NO_VALUE = Symbol('AWS::NoValue');

const holds = (conditions: Record<string, boolean>, name: string) => {
  const value = conditions[name];
  if (value === undefined) throw new Error(`no value for condition ${name}`);
  return value;
};

const resolveValue = (
  value: unknown,
  conditions: Record<string, boolean>
): unknown => {
  if (Array.isArray(value)) {
    return value
      .map((v) => resolveValue(v, conditions))
      .filter((v) => v !== NO_VALUE);
  }
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Record<string, unknown>;
  if (v.Ref === 'AWS::NoValue') return NO_VALUE;
  const branches = v['Fn::If'];
  if (Array.isArray(branches)) {
    const [name, whenTrue, whenFalse] = branches as [string, unknown, unknown];
    return resolveValue(
      holds(conditions, name) ? whenTrue : whenFalse,
      conditions
    );
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const resolved = resolveValue(x, conditions);
    if (resolved !== NO_VALUE) out[k] = resolved;
  }
  return out;
};

/**
 * Returns the template as CloudFormation would deploy it when each named
 * condition has the given value: every `Fn::If` replaced by its branch,
 * every `AWS::NoValue` removed, every resource whose condition is false
 * dropped. Throws on a condition it is not given.
 */
export const resolveConditions = (
  t: CfnTemplate,
  conditions: Record<string, boolean>
): CfnTemplate => {
  const resources: Record<string, CfnResource> = {};
  for (const [id, r] of Object.entries(t.Resources)) {
    if (r.Condition !== undefined && !holds(conditions, r.Condition)) continue;
    resources[id] = resolveValue(r, conditions) as CfnResource;
  }
  return { ...t, Resources: resources };
};
