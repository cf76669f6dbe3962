/**
 * CloudFormationStackOutputs: a stack's outputs by key, undefined for a
 * stack CloudFormation does not know, any other failure an AwsCallError.
 */
import {
  CloudFormationClient,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AwsCallError } from '#lib/adapters/aws/aws-call-error.js';
import { CloudFormationStackOutputs } from '#lib/adapters/aws/cloudformation-stack-outputs.js';

const outputsOf = (name: string) =>
  new CloudFormationStackOutputs({
    client: new CloudFormationClient({ region: 'eu-west-1' }),
  }).outputsOf(name);

describe('CloudFormationStackOutputs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('returns the outputs of the stack DescribeStacks reports, by key', async () => {
    // Prepare
    const send = vi
      .spyOn(CloudFormationClient.prototype, 'send')
      .mockImplementation(async () => ({
        Stacks: [
          {
            Outputs: [
              { OutputKey: 'StateTableName', OutputValue: 'dsr-prod-state' },
              { OutputKey: 'AlarmTopicArn', OutputValue: 'arn:aws:sns:x' },
              { OutputKey: 'NoValue' },
            ],
          },
        ],
      }));
    // Act
    const outputs = await outputsOf('serverless-daemonset-reconciler-prod');
    // Assess
    expect(outputs).toEqual({
      StateTableName: 'dsr-prod-state',
      AlarmTopicArn: 'arn:aws:sns:x',
    });
    const command = send.mock.calls[0]?.[0];
    expect(command).toBeInstanceOf(DescribeStacksCommand);
    expect((command as DescribeStacksCommand).input).toEqual({
      StackName: 'serverless-daemonset-reconciler-prod',
    });
  });

  it('returns undefined for a stack that does not exist', async () => {
    // Prepare
    vi.spyOn(CloudFormationClient.prototype, 'send').mockImplementation(
      async () => {
        throw Object.assign(
          new Error(
            'Stack with id serverless-daemonset-reconciler-x does not exist'
          ),
          { name: 'ValidationError' }
        );
      }
    );
    // Act
    const outputs = await outputsOf('serverless-daemonset-reconciler-x');
    // Assess
    expect(outputs).toBeUndefined();
  });

  it('reports any other failure as an AwsCallError naming the stack', async () => {
    // Prepare
    vi.spyOn(CloudFormationClient.prototype, 'send').mockImplementation(
      async () => {
        throw Object.assign(new Error('User is not authorized'), {
          name: 'AccessDenied',
        });
      }
    );
    // Act
    const error = await outputsOf('s').catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(AwsCallError);
    expect((error as Error).message).toBe(
      'CloudFormation describe stack s failed: AccessDenied: User is not authorized'
    );
  });
});
