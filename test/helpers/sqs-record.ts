/**
 * SQS messages as Lambda's event-source mapping hands them to a function:
 * the record shape of @types/aws-lambda `SQSRecord` (camelCase fields,
 * attributes as strings, binary values in base64, FIFO attributes only on
 * FIFO queues).
 */
import { createHash } from 'node:crypto';
import type { Message } from '@aws-sdk/client-sqs';
import type {
  SQSMessageAttributes,
  SQSRecord,
  SQSRecordAttributes,
} from 'aws-lambda';

/** Returns the region of an ARN (`arn:aws:sqs:REGION:account:name`). */
export const regionOfArn = (arn: string): string =>
  arn.split(':')[3] || 'us-east-1';

/** Returns the Lambda event record of a received message. */
export const toSqsRecord = (m: Message, queueArn: string): SQSRecord => {
  const body = m.Body ?? '';
  const a = m.Attributes ?? {};
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
    SentTimestamp: a.SentTimestamp ?? '',
    SenderId: a.SenderId ?? '',
    ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? '',
  };
  for (const name of [
    'AWSTraceHeader',
    'SequenceNumber',
    'MessageGroupId',
    'MessageDeduplicationId',
  ] as const) {
    const value = a[name];
    if (value !== undefined) attributes[name] = value;
  }
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, v] of Object.entries(m.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      ...(v.StringValue === undefined ? {} : { stringValue: v.StringValue }),
      ...(v.BinaryValue === undefined
        ? {}
        : { binaryValue: Buffer.from(v.BinaryValue).toString('base64') }),
      stringListValues: v.StringListValues ?? [],
      binaryListValues: (v.BinaryListValues ?? []).map((b) =>
        Buffer.from(b).toString('base64')
      ),
      dataType: v.DataType ?? 'String',
    };
  }
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body,
    attributes,
    messageAttributes,
    md5OfBody: m.MD5OfBody ?? createHash('md5').update(body).digest('hex'),
    ...(m.MD5OfMessageAttributes === undefined
      ? {}
      : { md5OfMessageAttributes: m.MD5OfMessageAttributes }),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: regionOfArn(queueArn),
  };
};

/** Returns a record as a test writes it: `body`, received `receiveCount` times. */
export const sqsRecord = (
  messageId: string,
  body: string,
  {
    receiveCount = 1,
    queueArn = 'arn:aws:sqs:us-east-1:000000000000:work.fifo',
  } = {}
): SQSRecord => ({
  messageId,
  receiptHandle: `r-${messageId}`,
  body,
  attributes: {
    ApproximateReceiveCount: String(receiveCount),
    SentTimestamp: '0',
    SenderId: 's',
    ApproximateFirstReceiveTimestamp: '0',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: queueArn,
  awsRegion: regionOfArn(queueArn),
});
