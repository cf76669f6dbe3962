/**
 * The AWS stand-ins the serverless runtime will be tested against answer as
 * AWS does for what the runtime needs: DynamoDB tables with TTL and
 * conditional writes, SQS FIFO queues with per-group exclusion.
 */
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, inject, it } from 'vitest';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

describe('AWS emulators in the test bed', () => {
  const ddb = new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'us-east-1',
    credentials,
  });
  const sqs = new SQSClient({
    endpoint: inject('sqsEndpoint'),
    region: 'us-east-1',
    credentials,
  });

  afterAll(() => {
    ddb.destroy();
    sqs.destroy();
  });

  it('DynamoDB Local creates a table with TTL and refuses a conditional put on an existing key', async () => {
    // Prepare
    await ddb.send(
      new CreateTableCommand({
        TableName: 'state',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      })
    );
    await ddb.send(
      new UpdateTimeToLiveCommand({
        TableName: 'state',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      })
    );
    const put = () =>
      ddb.send(
        new PutItemCommand({
          TableName: 'state',
          Item: { pk: { S: 'test/ns/ds' }, add: { N: '1' } },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        })
      );
    await put();
    // Act
    const err = await put().catch((e: unknown) => e);
    // Assess
    expect(err).toBeInstanceOf(ConditionalCheckFailedException);
    expect((err as ConditionalCheckFailedException).Item?.add).toEqual({
      N: '1',
    });
  });

  it('the SQS emulator holds back a message group while one of its messages is in flight', async () => {
    // Prepare
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: 'keys.fifo',
        Attributes: { FifoQueue: 'true', VisibilityTimeout: '30' },
      })
    );
    for (const [group, id] of [
      ['a', 'a1'],
      ['a', 'a2'],
      ['b', 'b1'],
    ]) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: id,
          MessageGroupId: group,
          MessageDeduplicationId: id,
        })
      );
    }
    // Act
    const first = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1 })
    );
    const second = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 })
    );
    // Assess
    expect(first.Messages?.map((m) => m.Body)).toEqual(['a1']);
    expect(second.Messages?.map((m) => m.Body)).toEqual(['b1']);
  });
});
