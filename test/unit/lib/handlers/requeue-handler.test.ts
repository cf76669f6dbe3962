/**
 * The requeue function's handler over fakes of its ports: a due timer adds
 * its key and is logged with its key, due time and outcome; a malformed
 * body is acknowledged and logged; a failed add is reported for
 * redelivery, and a redelivered superseded due timer still adds.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryWorkQueueStore } from '#lib/adapters/memory/memory-work-queue-store.js';
import { createRequeueHandler } from '#lib/handlers/requeue-handler.js';
import { formatTimerMessage } from '#lib/workqueue/timer-message.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import { lambdaContext } from '../../../helpers/lambda-context.js';
import { sqsRecord } from '../../../helpers/sqs-record.js';

const KEY = 'prod/kube-system/agent';

const record = (messageId: string, body: string, receiveCount = 1) =>
  sqsRecord(messageId, body, {
    receiveCount,
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:delay',
  });

/** A silent logger whose debug, warn and error calls are kept. */
const capturingLogger = () => {
  const lines: Record<string, unknown>[] = [];
  const logger = new Logger({ logLevel: 'SILENT' });
  for (const level of ['debug', 'warn', 'error'] as const) {
    logger[level] = ((message: string, attributes?: object) => {
      lines.push({ level, message, ...attributes });
    }) as Logger['debug'];
  }
  return { logger, lines };
};

describe('createRequeueHandler', () => {
  let clock: FakeClock;
  let marks: MemoryWorkQueueStore;
  let added: string[];
  let failAdds: Error | undefined;
  let lines: Record<string, unknown>[];
  let handler: ReturnType<typeof createRequeueHandler>;
  beforeEach(() => {
    clock = new FakeClock();
    marks = new MemoryWorkQueueStore({ clock });
    added = [];
    failAdds = undefined;
    const captured = capturingLogger();
    lines = captured.lines;
    handler = createRequeueHandler({
      logger: captured.logger,
      timers: {
        clock,
        marks,
        delayQueue: { send: async () => undefined },
        workQueue: {
          add: async (key) => {
            if (failAdds) throw failAdds;
            added.push(key);
          },
        },
      },
    });
  });

  const armedBody = async (inMs: number) => {
    const dueAtMs = clock.now() + inMs;
    const token = await marks.armTimer(KEY, dueAtMs);
    if (token === undefined) throw new Error('timer not armed');
    return {
      body: formatTimerMessage({ key: KEY, dueAtMs, token }),
      dueAtMs,
      token,
    };
  };

  const run = (records: SQSRecord[]) =>
    handler({ Records: records } as SQSEvent, lambdaContext());

  it('adds a due timer key and logs its key, due time and outcome', async () => {
    // Prepare
    const { body, dueAtMs } = await armedBody(2_000);
    clock.step(2_000);
    // Act
    const response = await run([record('m1', body)]);
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(added).toEqual([KEY]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'timer handled',
        key: KEY,
        dueAtMs,
        redelivered: false,
        outcome: 'fired',
      })
    );
  });

  it('acknowledges a malformed timer message and logs it as dropped', async () => {
    // Act
    const response = await run([record('m1', 'prod/kube-system/agent')]);
    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(added).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'dropping timer message',
        messageId: 'm1',
      })
    );
  });

  it('reports a timer whose add failed for redelivery, and logs it', async () => {
    // Prepare
    const { body } = await armedBody(1_000);
    clock.step(1_000);
    failAdds = new Error('SQS send 500');
    // Act
    const response = await run([record('m1', body)]);
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'record failed; it is delivered again',
        messageId: 'm1',
        error: 'SQS send 500',
      })
    );
  });

  it('drops a due timer an earlier one replaced, unless it is delivered again', async () => {
    // Prepare: the earlier timer replaced this one and fires on its own.
    const replaced = await armedBody(5_000);
    const earlier = await armedBody(2_000);
    await marks.confirmTimer(KEY, earlier.token);
    clock.step(5_000);
    // Act
    const first = await run([record('m1', replaced.body)]);
    const again = await run([record('m1', replaced.body, 2)]);
    // Assess: only the redelivery adds (its first attempt may have died
    // holding the key's dirty mark).
    expect(first.batchItemFailures).toEqual([]);
    expect(again.batchItemFailures).toEqual([]);
    expect(added).toEqual([KEY]);
    expect(lines.map((l) => l.outcome).filter(Boolean)).toEqual([
      'superseded',
      'fired',
    ]);
  });
});
