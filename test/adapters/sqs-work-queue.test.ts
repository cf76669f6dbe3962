/**
 * The SQS work queue against the SQS emulator keeps client-go's guarantees:
 * adds coalesce, an add during a sync queues one more, nothing is lost to the
 * FIFO 5-minute deduplication window or to a failed send, and delayed adds
 * go through the delay queue and the timer forwarder (earliest time wins,
 * delays beyond 900 s chained).
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchItemFailure, SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryWorkQueueStore } from '#lib/adapters/memory/memory-work-queue-store.js';
import { SqsDelayQueue } from '#lib/adapters/sqs/sqs-delay-queue.js';
import { SqsQueueError } from '#lib/adapters/sqs/sqs-queue-error.js';
import { SqsWorkQueue } from '#lib/adapters/sqs/sqs-work-queue.js';
import { PoisonMessageError, ReconcilerError } from '#lib/errors.js';
import type { Clock, DelayQueue, WorkQueueMarks } from '#lib/ports/index.js';
import { UNSENT_MARK_MS } from '#lib/workqueue/dirty-mark.js';
import {
  type FireTimerDeps,
  fireTimer,
  type TimerOutcome,
} from '#lib/workqueue/fire-timers.js';
import {
  parseTimerMessage,
  UNSENT_TIMER_MS,
} from '#lib/workqueue/timer-message.js';
import { EsmPoller } from '../helpers/esm-poller.js';
import { FakeClock } from '../helpers/fakes/fake-clock.js';
import {
  createSqsQueues,
  drainQueue,
  queueCounts,
  type SqsTestQueues,
} from '../helpers/sqs-queues.js';

const KEY = 'prod/kube-system/agent';
const WAIT = { timeout: 20_000, interval: 50 };
const wallClock: Clock = { now: () => Date.now() };

describe('SqsWorkQueue', () => {
  let queues: SqsTestQueues;
  let marks: MemoryWorkQueueStore;
  let queue: SqsWorkQueue;
  let forwarder: EsmPoller | undefined;
  const outcomes: TimerOutcome[] = [];
  const poison: Error[] = [];

  const newQueue = (overrides: {
    workQueueUrl?: string;
    delayQueueUrl?: string;
    clock?: Clock;
    marks?: WorkQueueMarks;
  }) =>
    new SqsWorkQueue({
      client: queues.client,
      workQueueUrl: queues.work.url,
      marks,
      clock: wallClock,
      ...overrides,
      delayQueue: new SqsDelayQueue({
        client: queues.client,
        queueUrl: overrides.delayQueueUrl ?? queues.delay.url,
      }),
    });

  beforeEach(async () => {
    queues = await createSqsQueues({ visibilityTimeoutSeconds: 5 });
    marks = new MemoryWorkQueueStore({ clock: wallClock });
    queue = newQueue({});
    outcomes.length = 0;
    poison.length = 0;
  });
  afterEach(async () => {
    await forwarder?.stop();
    forwarder = undefined;
    await queues.destroy();
  });

  /** Runs the delay forwarder the way its Lambda will: poison is acked. */
  const startForwarder = async (deps: Partial<FireTimerDeps> = {}) => {
    const all: FireTimerDeps = {
      delayQueue: new SqsDelayQueue({
        client: queues.client,
        queueUrl: queues.delay.url,
      }),
      workQueue: queue,
      marks,
      clock: wallClock,
      ...deps,
    };
    forwarder = await EsmPoller.start({
      client: queues.client,
      queueUrl: queues.delay.url,
      handler: async (event: SQSEvent) => {
        const batchItemFailures: SQSBatchItemFailure[] = [];
        for (const record of event.Records) {
          try {
            outcomes.push(await fireTimer(record.body, all));
          } catch (e) {
            if (e instanceof PoisonMessageError) poison.push(e);
            else batchItemFailures.push({ itemIdentifier: record.messageId });
          }
        }
        return { batchItemFailures };
      },
    });
  };
  const workMessages = () => drainQueue(queues.client, queues.work.url);
  const delayedTimers = async () =>
    (await queueCounts(queues.client, queues.delay.url)).delayed;

  describe('add', () => {
    it('sends one message for ten concurrent adds of a key', async () => {
      // Act
      await Promise.all(Array.from({ length: 10 }, () => queue.add(KEY)));
      // Assess
      const messages = await workMessages();
      expect(messages.map((m) => m.Body)).toEqual([KEY]);
      expect(messages[0]?.Attributes?.MessageGroupId).toBe(KEY);
      expect(messages[0]?.Attributes?.MessageDeduplicationId).toMatch(
        /^[0-9a-f-]{36}$/
      );
    });

    it('queues one more message for an add after the consumer cleared the mark', async () => {
      // Prepare
      await queue.add(KEY);
      const { Messages: inFlight = [] } = await queues.client.send(
        new ReceiveMessageCommand({ QueueUrl: queues.work.url })
      );
      // Act
      await queue.add(KEY); // before beginSync: coalesces
      await marks.beginSync(KEY);
      await queue.add(KEY);
      await queue.add(KEY); // coalesces into the one just sent
      // Assess
      const whileInFlight = await queues.client.send(
        new ReceiveMessageCommand({ QueueUrl: queues.work.url })
      );
      expect(inFlight).toHaveLength(1);
      expect(whileInFlight.Messages ?? []).toEqual([]);
      expect(await queueCounts(queues.client, queues.work.url)).toMatchObject({
        visible: 1,
        inFlight: 1,
      });
    });

    it('records what an add saw, also when it coalesces, for the sync to read', async () => {
      // Prepare
      await queue.add(KEY, { collection: 'pods', resourceVersion: '40' });
      // Act
      await queue.add(KEY, {
        collection: 'pods',
        resourceVersion: '41',
        releasePod: 'agent-x',
      });
      const start = await marks.beginSync(KEY);
      // Assess
      expect(start.seen).toEqual({ pods: '41', releasePods: ['agent-x'] });
    });

    it('delivers a re-add within 5 minutes of the previous message', async () => {
      // Prepare
      await queue.add(KEY);
      const first = await workMessages();
      await marks.beginSync(KEY);
      // Act
      await queue.add(KEY);
      // Assess
      expect(first).toHaveLength(1);
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it('shortens a key too long for a message group, keeping the body', async () => {
      // Prepare
      const long = `prod/${'n'.repeat(63)}/${'d'.repeat(200)}`;
      // Act
      await queue.add(long);
      // Assess
      const [message] = await workMessages();
      expect(message?.Body).toBe(long);
      expect(message?.Attributes?.MessageGroupId).toHaveLength(128);
    });

    it('clears the mark and throws an SqsQueueError when the send fails', async () => {
      // Prepare
      const broken = newQueue({
        workQueueUrl: queues.work.url.replace('-work.fifo', '-gone.fifo'),
      });
      // Act
      const error = await broken.add(KEY).catch((e: unknown) => e);
      await queue.add(KEY);
      // Assess
      expect(error).toBeInstanceOf(SqsQueueError);
      expect(error).toBeInstanceOf(ReconcilerError);
      expect((error as Error).message).toContain(`send ${KEY}`);
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it('reports both errors when the mark cannot be cleared after a failed send', async () => {
      // Prepare
      const failing = new Proxy(marks, {
        get: (store, name) =>
          name === 'clearDirty'
            ? async () => {
                throw new Error('DynamoDB down');
              }
            : Reflect.get(store, name).bind(store),
      });
      const broken = newQueue({
        workQueueUrl: queues.work.url.replace('-work.fifo', '-gone.fifo'),
        marks: failing,
      });
      // Act
      const error = await broken.add(KEY).catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(AggregateError);
      expect((error as AggregateError).errors.map((e) => e.name)).toEqual([
        'SqsQueueError',
        'Error',
      ]);
    });
  });

  /** The marks store, but the first mark of `key` lands and its answer is lost. */
  const losingFirstMarkAnswer = (key: string): WorkQueueMarks => {
    let lose = true;
    return new Proxy(marks, {
      get: (store, name) =>
        name === 'markDirty'
          ? async (...args: Parameters<typeof marks.markDirty>) => {
              const marked = await store.markDirty(...args);
              if (!lose || args[0] !== key) return marked;
              lose = false;
              throw new Error('TimeoutError: socket hang up');
            }
          : Reflect.get(store, name).bind(store),
    });
  };

  describe('a sender that died or failed between mark and send', () => {
    it('converges-after-faults: a mark left without a message stops swallowing adds after UNSENT_MARK_MS (campaign seeds 316, 344)', async () => {
      // Prepare: a requeue (or bridge) set the mark and died before its
      // SendMessage; its retry comes later.
      const clock = new FakeClock(Date.now());
      const store = new MemoryWorkQueueStore({ clock });
      const retrying = newQueue({ marks: store, clock });
      await store.markDirty(KEY, undefined, 'died-before-send');
      clock.step(UNSENT_MARK_MS + 1);
      // Act
      await retrying.add(KEY);
      // Assess
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it("converges-after-faults: an add that finds another sender's unsent mark waits, and sends once that mark stops blocking (campaign seed 60459: a bridge restarted within 3 s of its predecessor's death coalesced into its unsent mark)", async () => {
      // Prepare: a bridge marked the key and died before its send; the
      // restarted bridge adds the key 0.1 s later.
      const store = new MemoryWorkQueueStore({ clock: wallClock });
      const restarted = newQueue({ marks: store });
      await store.markDirty(KEY, undefined, 'died-before-send');
      // Act
      await restarted.add(KEY);
      // Assess
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it.each([
      [
        'that sender confirms its message',
        (store: MemoryWorkQueueStore) => store.confirmMark(KEY, 'other-sender'),
      ],
      [
        'a sync has taken that mark (it reads after the change: ten concurrent adds of a waiting key make one sync)',
        (store: MemoryWorkQueueStore) => store.beginSync(KEY),
      ],
    ])(
      "an add that finds another sender's unsent mark sends nothing once %s",
      async (_, decide) => {
        // Prepare: another sender between its mark and its confirmation.
        const store = new MemoryWorkQueueStore({ clock: wallClock });
        const q = newQueue({ marks: store });
        await store.markDirty(KEY, undefined, 'other-sender');
        // Act
        const added = q.add(KEY);
        await new Promise((r) => setTimeout(r, 150));
        await decide(store);
        await added;
        // Assess: nothing of this add's (the other's message is its own).
        expect(await workMessages()).toEqual([]);
      }
    );

    it("an add that finds its own process's mark in flight awaits that send instead of reading the store (a bridge flush adds one key for many pod events at once)", async () => {
      // Prepare: count the store's fate reads.
      let fateReads = 0;
      const counting = new Proxy(marks, {
        get: (store, name) =>
          name === 'markFate'
            ? async (...args: Parameters<typeof marks.markFate>) => {
                fateReads++;
                return await store.markFate(...args);
              }
            : Reflect.get(store, name).bind(store),
      });
      const q = newQueue({ marks: counting });
      // Act
      await Promise.all(Array.from({ length: 10 }, () => q.add(KEY)));
      // Assess
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
      expect(fateReads).toBe(0);
    });

    it('after its confirmation failed, the next add of the same process coalesces into its sent mark, reading nothing and sending nothing', async () => {
      // Prepare: DynamoDB refuses the first confirmation.
      let confirmFails = true;
      let fateReads = 0;
      const flaky = new Proxy(marks, {
        get: (store, name) => {
          if (name === 'confirmMark' && confirmFails) {
            return async () => {
              confirmFails = false;
              throw new Error('ProvisionedThroughputExceededException');
            };
          }
          if (name === 'markFate') fateReads++;
          return Reflect.get(store, name).bind(store);
        },
      });
      const q = newQueue({ marks: flaky });
      await q.add(KEY);
      // Act
      await q.add(KEY);
      // Assess
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
      expect(fateReads).toBe(0);
    });

    it('still coalesces adds behind a mark whose message was sent', async () => {
      const clock = new FakeClock(Date.now());
      const store = new MemoryWorkQueueStore({ clock });
      const q = newQueue({ marks: store, clock });
      await q.add(KEY);
      clock.step(UNSENT_MARK_MS + 1);
      await q.add(KEY);
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it('converges-after-faults: retries its own mark when the mark was written but its answer lost, so the retry sends (campaign seed 30180)', async () => {
      // Prepare: the first markDirty lands, then its answer is lost.
      const q = newQueue({ marks: losingFirstMarkAnswer(KEY) });
      // Act: the bridge retries the same event at once (well within UNSENT_MARK_MS).
      const first = await q.add(KEY).catch((e: unknown) => e);
      await q.add(KEY);
      // Assess
      expect(first).toBeInstanceOf(Error);
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it('retries its own mark when neither the send nor the clearing worked, so the retry sends', async () => {
      // Prepare: SQS refuses the first send and DynamoDB the clearing.
      let clearFails = true;
      const flaky = new Proxy(marks, {
        get: (store, name) =>
          name === 'clearDirty' && clearFails
            ? async () => {
                throw new Error('DynamoDB down');
              }
            : Reflect.get(store, name).bind(store),
      });
      let sendFails = true;
      const q = newQueue({ marks: flaky });
      const send = queues.client.send.bind(queues.client);
      const spy = vi
        .spyOn(queues.client, 'send')
        .mockImplementation(async (command: unknown) => {
          if (sendFails && command instanceof SendMessageCommand) {
            sendFails = false;
            throw new Error('SQS 500');
          }
          return send(command as never);
        });
      // Act
      const first = await q.add(KEY).catch((e: unknown) => e);
      clearFails = false;
      await q.add(KEY);
      spy.mockRestore();
      // Assess
      expect(first).toBeInstanceOf(AggregateError);
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });
  });

  describe('addAfter', () => {
    it('adds at once when the delay is under a second', async () => {
      // Act
      await queue.addAfter(KEY, 640);
      // Assess
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
      expect(await delayedTimers()).toBe(0);
    });

    it('adds the key through the delay queue no earlier than the delay', async () => {
      // Prepare
      await startForwarder();
      const before = Date.now();
      // Act
      await queue.addAfter(KEY, 2_000);
      // Assess
      await vi.waitFor(() => expect(outcomes).toEqual(['fired']), WAIT);
      const [message] = await workMessages();
      expect(message?.Body).toBe(KEY);
      expect(
        Number(message?.Attributes?.SentTimestamp) - before
      ).toBeGreaterThanOrEqual(2_000);
      await queue.addAfter(KEY, 60_000); // arms again: the timer was disarmed
      expect(await delayedTimers()).toBe(1);
    });

    it('lets the earliest pending timer win', async () => {
      // Prepare
      await startForwarder();
      // Act
      await queue.addAfter(KEY, 3_000);
      await queue.addAfter(KEY, 1_500); // earlier: replaces the 3-s timer
      await queue.addAfter(KEY, 2_500); // later than pending: nothing sent
      const sent = await queueCounts(queues.client, queues.delay.url);
      await vi.waitFor(() => expect(outcomes).toHaveLength(2), WAIT);
      // Assess
      expect(sent.delayed).toBe(2);
      expect(outcomes).toEqual(['fired', 'superseded']);
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it('chains a timer whose due time is more than 900 s away', async () => {
      // Prepare
      const producerClock = new FakeClock();
      await newQueue({ clock: producerClock }).addAfter(KEY, 1_500);
      // The forwarder's clock says the timer is still 1,000 s away.
      const forwarderClock = new FakeClock(producerClock.now() - 998_500);
      const real = new SqsDelayQueue({
        client: queues.client,
        queueUrl: queues.delay.url,
      });
      const resent: { body: string; delaySeconds: number }[] = [];
      const recording: DelayQueue = {
        send: async (body, delaySeconds) => {
          resent.push({ body, delaySeconds });
          await real.send(body, delaySeconds);
        },
      };
      // Act
      await startForwarder({ delayQueue: recording, clock: forwarderClock });
      await vi.waitFor(() => expect(outcomes).toEqual(['rescheduled']), WAIT);
      // Assess
      expect(resent.map((r) => r.delaySeconds)).toEqual([900]);
      expect(await delayedTimers()).toBe(1);
      const { token } = parseTimerMessage(resent[0]?.body ?? '');
      expect(await marks.isTimerArmed(KEY, token)).toBe(true);
    });

    it('confirms the timer it sent, so it keeps winning beyond UNSENT_TIMER_MS', async () => {
      // Prepare
      const clock = new FakeClock();
      const store = new MemoryWorkQueueStore({ clock });
      const timed = newQueue({ clock, marks: store });
      // Act
      await timed.addAfter(KEY, 60_000);
      clock.step(UNSENT_TIMER_MS + 1);
      await timed.addAfter(KEY, 60_000); // later than the pending one
      // Assess
      expect(await delayedTimers()).toBe(1);
    });

    it("converges-after-faults: an addAfter that finds another sender's timer armed but never sent waits it out and sends its own (campaign seed 170896: a reconcile attempt armed the key's requeue past an open breaker and was killed before sending; its redelivery asked for the same time and was refused, and the key was never woken)", async () => {
      // Prepare: the dead attempt's timer, due when the breaker closes.
      const dueAtMs = Date.now() + 60_000;
      const dead = await marks.armTimer(KEY, dueAtMs);
      // Act: the redelivered attempt requeues the key for that time.
      await queue.addAfter(KEY, dueAtMs + 5 - Date.now());
      // Assess: past the dead timer's UNSENT_TIMER_MS, its own was sent.
      expect(await delayedTimers()).toBe(1);
      expect(await marks.isTimerArmed(KEY, dead ?? '')).toBe(false);
    });

    it("arms past another sender's unsent timer as soon as that timer is due, and its message fires", async () => {
      // Prepare: a timer armed, never sent, due in 1.5 s.
      await startForwarder();
      const dueAtMs = Date.now() + 1_500;
      await marks.armTimer(KEY, dueAtMs);
      // Act
      await queue.addAfter(KEY, dueAtMs + 100 - Date.now());
      // Assess
      await vi.waitFor(() => expect(outcomes).toEqual(['fired']), WAIT);
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it("an addAfter that finds another sender's unsent timer due no later sends nothing once that sender confirms it", async () => {
      // Prepare: another sender between its arming and its confirmation.
      const token = await marks.armTimer(KEY, Date.now() + 60_000);
      // Act
      const added = queue.addAfter(KEY, 90_000);
      await new Promise((r) => setTimeout(r, 150));
      await marks.confirmTimer(KEY, token ?? '');
      await added;
      // Assess: nothing of this add's (the other's message is its own).
      expect(await delayedTimers()).toBe(0);
      expect(await marks.isTimerArmed(KEY, token ?? '')).toBe(true);
    });

    it('converges-after-faults: an addAfter whose timer send fails leaves the timer it replaced to fire (campaign seed 180457: a duplicate delivery requeued the key past an open breaker, replacing the pending timer due within the second; its send failed, the failed attempt was not delivered again, and the replaced timer found no timer and was dropped)', async () => {
      // Prepare: the pending timer, sent, due in 1.5 s.
      await startForwarder();
      await queue.addAfter(KEY, 1_500);
      // Due within the second: a later timer replaces it (STALE_TIMER_MS).
      await new Promise((r) => setTimeout(r, 600));
      const broken = newQueue({
        delayQueueUrl: queues.delay.url.replace('-delay', '-gone'),
      });
      // Act
      const error = await broken.addAfter(KEY, 1_000).catch((e: unknown) => e);
      // Assess: the first timer's message still adds the key.
      expect(error).toBeInstanceOf(SqsQueueError);
      await vi.waitFor(() => expect(outcomes).toEqual(['fired']), WAIT);
      expect((await workMessages()).map((m) => m.Body)).toEqual([KEY]);
    });

    it('abandons the timer and throws when the delay queue refuses the timer', async () => {
      // Prepare
      const broken = newQueue({
        delayQueueUrl: queues.delay.url.replace('-delay', '-gone'),
      });
      // Act
      const error = await broken.addAfter(KEY, 5_000).catch((e: unknown) => e);
      // Assess
      await queue.addAfter(KEY, 6_000); // later, yet armed: nothing pending
      expect(error).toBeInstanceOf(SqsQueueError);
      expect(await delayedTimers()).toBe(1);
    });
  });

  describe('the timer forwarder', () => {
    it('acknowledges a malformed timer message as poison', async () => {
      // Prepare
      await queues.client.send(
        new SendMessageCommand({
          QueueUrl: queues.delay.url,
          MessageBody: '{"key":"not a key"}',
        })
      );
      // Act
      await startForwarder();
      await vi.waitFor(() => expect(poison).toHaveLength(1), WAIT);
      // Assess
      expect(poison[0]).toBeInstanceOf(PoisonMessageError);
      expect(poison[0]?.message).toContain('malformed timer message');
      await vi.waitFor(
        () => expect(forwarder?.invocations[0]?.outcome).toBe('succeeded'),
        WAIT
      );
    });
  });
});
