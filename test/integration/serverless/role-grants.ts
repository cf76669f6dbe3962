/**
 * What IAM would decide on the calls a function's SDK clients made.
 * DynamoDB Local and fauxqs enforce no IAM, so a grant the code outgrew
 * passes every test there and fails only in AWS. Each recorded DynamoDB or
 * SQS call becomes the permissions AWS checks for it (a transaction's or a
 * batch's items each their own, as IAM authorises them), with the partition
 * keys of its items, and each is checked against the role's statements in
 * the packaged template: allowed when an Allow names the action and the
 * resource and its `ForAllValues:StringLike` `dynamodb:LeadingKeys` admits
 * every key, unless a Deny's `ForAnyValue:StringLike` matches one. Any other
 * condition operator counts as not allowing (this checker does not know it).
 */
import type { ProxiedCall } from '../../bench/counting-proxy.js';
import {
  asList,
  type CfnTemplate,
  type PolicyStatement,
  prop,
  referencedId,
  subString,
} from '../../unit/infra/package-template.js';

/** One permission a call needs. */
export interface Permission {
  action: string;
  /** The logical id (`StateTable`, `WorkQueue`) or `StateTable/index/NAME`. */
  resource: string;
  /** The partition keys of the items it touches. */
  leadingKeys: string[];
}

type Json = Record<string, unknown>;

const pkOf = (item: unknown): string =>
  ((item as { pk?: { S?: string } } | undefined)?.pk?.S ?? '') as string;

const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

/** SQS batch calls are authorised as their single-message action. */
const SQS_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

const dynamo = (action: string, keys: string[]): Permission => ({
  action: `dynamodb:${action}`,
  resource: 'StateTable',
  leadingKeys: keys,
});

/**
 * Returns the permissions `call` needs; `queues` maps each queue URL to its
 * logical id.
 */
export const permissionsOf = (
  call: Pick<ProxiedCall, 'action' | 'input'>,
  queues: Record<string, string>
): Permission[] => {
  const input = (call.input ?? {}) as Json;
  switch (call.action) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [dynamo(call.action, [pkOf(input.Key)])];
    case 'PutItem':
      return [dynamo(call.action, [pkOf(input.Item)])];
    case 'Query':
      return [
        {
          action: 'dynamodb:Query',
          resource: input.IndexName
            ? `StateTable/index/${String(input.IndexName)}`
            : 'StateTable',
          leadingKeys: [],
        },
      ];
    case 'BatchGetItem':
      return [
        dynamo(
          call.action,
          Object.values(input.RequestItems as Record<string, Json>).flatMap(
            (r) => (r.Keys as unknown[]).map(pkOf)
          )
        ),
      ];
    case 'BatchWriteItem':
      return [
        dynamo(
          call.action,
          Object.values(input.RequestItems as Record<string, Json[]>)
            .flat()
            .map((w) =>
              pkOf(
                (w.PutRequest as Json | undefined)?.Item ??
                  (w.DeleteRequest as Json | undefined)?.Key
              )
            )
        ),
      ];
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return (input.TransactItems as Json[]).map((t) => {
        const [kind, body] = Object.entries(t)[0] as [string, Json];
        return dynamo(TRANSACT_ACTIONS[kind] ?? kind, [
          pkOf(body.Key ?? body.Item),
        ]);
      });
    default: {
      const url = String(input.QueueUrl ?? '');
      return [
        {
          action: `sqs:${SQS_ACTIONS[call.action] ?? call.action}`,
          resource: queues[url] ?? url,
          leadingKeys: [],
        },
      ];
    }
  }
};

/** Returns the item-key prefix of a key (`lease#a` → `lease#`). */
export const keyPrefix = (key: string): string =>
  key.includes('#') ? key.slice(0, key.indexOf('#') + 1) : key;

const resourceName = (r: unknown): string => {
  const id = referencedId(r);
  if (id) return id;
  const sub = subString(r);
  return typeof sub === 'string'
    ? sub.replace(/^\$\{(\w+)\.Arn\}/, '$1')
    : JSON.stringify(r);
};

const like = (pattern: string, value: string): boolean =>
  new RegExp(
    `^${pattern
      .split('')
      .map((c) =>
        c === '*'
          ? '.*'
          : c === '?'
            ? '.'
            : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
      )
      .join('')}$`
  ).test(value);

type Conditioned = PolicyStatement & {
  Condition?: Record<string, Record<string, unknown>>;
};

const names = (s: Conditioned, p: Permission): boolean =>
  asList(s.Action).includes(p.action) &&
  asList(s.Resource).some((r) => resourceName(r) === p.resource);

/** Whether every condition of the statement holds for `p`. */
const conditionsHold = (s: Conditioned, p: Permission): boolean =>
  Object.entries(s.Condition ?? {}).every(([operator, tests]) =>
    Object.entries(tests).every(([key, patterns]) => {
      if (key !== 'dynamodb:LeadingKeys') return false;
      const list = asList(patterns).map(String);
      const match = (k: string) => list.some((pat) => like(pat, k));
      if (operator === 'ForAllValues:StringLike') {
        return p.leadingKeys.every(match);
      }
      if (operator === 'ForAnyValue:StringLike') {
        return p.leadingKeys.some(match);
      }
      return false;
    })
  );

/** Returns each of `needed` that role `roleId` does not allow, as a line. */
export const notAllowed = (
  t: CfnTemplate,
  roleId: string,
  needed: readonly Permission[]
): string[] => {
  const statements = (
    asList(prop(t, roleId, 'Policies') ?? []) as {
      PolicyDocument: { Statement: Conditioned[] };
    }[]
  ).flatMap((policy) => policy.PolicyDocument.Statement);
  const refused = needed.filter((p) => {
    const applies = (s: Conditioned) => names(s, p) && conditionsHold(s, p);
    const allows = statements.filter((s) => s.Effect === 'Allow');
    const denies = statements.filter((s) => s.Effect === 'Deny');
    return !allows.some(applies) || denies.some(applies);
  });
  return [
    ...new Set(
      refused.map(
        (p) =>
          `${p.action} ${p.resource} ${[...new Set(p.leadingKeys.map(keyPrefix))].join(',')}`
      )
    ),
  ].sort();
};
