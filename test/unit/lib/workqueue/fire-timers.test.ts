/**
 * The delay forwarder's core over fakes of its ports: firing, chaining
 * beyond SQS's 900-s delay, "earliest ready time wins", poison bodies.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryWorkQueueStore } from '#lib/adapters/memory/memory-work-queue-store.js';
import { PoisonMessageError } from '#lib/errors.js';
import type { DelayQueue } from '#lib/ports/index.js';
import { type FireTimerDeps, fireTimer } from '#lib/workqueue/fire-timers.js';
import {
  formatTimerMessage,
  UNSENT_TIMER_MS,
} from '#lib/workqueue/timer-message.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';

const KEY = 'prod/kube-system/agent';

class FakeDelayQueue implements DelayQueue {
  sent: { body: string; delaySeconds: number }[] = [];
  async send(body: string, delaySeconds: number): Promise<void> {
    this.sent.push({ body, delaySeconds });
  }
}

/** Records adds; fails them while `failWith` is set. */
class RecordingWorkQueue {
  added: string[] = [];
  failWith: Error | undefined;
  async add(key: string): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.added.push(key);
  }
}

describe('fireTimer', () => {
  let clock: FakeClock;
  let marks: MemoryWorkQueueStore;
  let delayQueue: FakeDelayQueue;
  let workQueue: RecordingWorkQueue;
  let deps: FireTimerDeps;
  beforeEach(() => {
    clock = new FakeClock();
    marks = new MemoryWorkQueueStore({ clock });
    delayQueue = new FakeDelayQueue();
    workQueue = new RecordingWorkQueue();
    deps = { clock, marks, delayQueue, workQueue };
  });

  /** Arms a timer due in `inMs`; returns its message body and token. */
  const arm = async (inMs: number) => {
    const dueAtMs = clock.now() + inMs;
    const token = await marks.armTimer(KEY, dueAtMs);
    if (token === undefined) throw new Error('timer not armed');
    return { body: formatTimerMessage({ key: KEY, dueAtMs, token }), token };
  };

  it('adds the key and disarms the timer when it is due', async () => {
    // Prepare
    const { body, token } = await arm(5_000);
    clock.step(5_000);
    // Act
    const outcome = await fireTimer(body, deps);
    // Assess
    expect(outcome).toBe('fired');
    expect(workQueue.added).toEqual([KEY]);
    expect(await marks.isTimerArmed(KEY, token)).toBe(false);
    expect(delayQueue.sent).toEqual([]);
  });

  it('fires a timer that is at most one second early (SQS has whole seconds)', async () => {
    // Prepare
    const { body } = await arm(5_000);
    clock.step(4_000);
    // Act
    const outcome = await fireTimer(body, deps);
    // Assess
    expect(outcome).toBe('fired');
    expect(workQueue.added).toEqual([KEY]);
  });

  it('keeps the timer armed when the add fails, so redelivery adds again', async () => {
    // Prepare
    const { body, token } = await arm(2_000);
    clock.step(2_000);
    const failure = new Error('SQS down');
    workQueue.failWith = failure;
    // Act
    const error = await fireTimer(body, deps).catch((e: unknown) => e);
    const armedAfterFailure = await marks.isTimerArmed(KEY, token);
    workQueue.failWith = undefined;
    const retried = await fireTimer(body, deps);
    // Assess
    expect(error).toBe(failure);
    expect(armedAfterFailure).toBe(true);
    expect(retried).toBe('fired');
    expect(workQueue.added).toEqual([KEY]);
  });

  it('converges-after-faults: fires a timer whose earlier replacement was abandoned, its message never sent (campaign seed 180457)', async () => {
    // Prepare: replaced by an earlier timer whose send then failed.
    const { body } = await arm(5_000);
    const replacement = await marks.armTimer(KEY, clock.now() + 1_000);
    await marks.abandonTimer(KEY, replacement ?? '');
    clock.step(5_000);
    // Act
    const outcome = await fireTimer(body, deps);
    // Assess
    expect(outcome).toBe('fired');
    expect(workQueue.added).toEqual([KEY]);
  });

  it('fires a timer replaced by an earlier one whose message is not confirmed sent (its sender may have died or failed before abandoning it)', async () => {
    // Prepare
    const { body } = await arm(5_000);
    await marks.armTimer(KEY, clock.now() + 1_000);
    clock.step(5_000);
    // Act
    const outcome = await fireTimer(body, deps);
    // Assess
    expect(outcome).toBe('fired');
    expect(workQueue.added).toEqual([KEY]);
  });

  it("converges-after-faults: adds the key of a due timer delivered again even when it was superseded, as its first attempt may have died holding the key's mark unsent (campaign seed 1017)", async () => {
    // Prepare: the timer's first attempt died after marking the key; the
    // timer that replaced it fired (its add swallowed by that mark) and
    // disarmed.
    const { body, token } = await arm(1_000);
    clock.step(1_000);
    await marks.disarmTimer(KEY, token);
    // Act
    const firstDelivery = await fireTimer(body, deps);
    const redelivered = await fireTimer(body, deps, true);
    // Assess
    expect(firstDelivery).toBe('superseded');
    expect(redelivered).toBe('fired');
    expect(workQueue.added).toEqual([KEY]);
  });

  it('still drops a superseded timer delivered again while not yet due', async () => {
    const { body, token } = await arm(60_000);
    await marks.disarmTimer(KEY, token);
    expect(await fireTimer(body, deps, true)).toBe('superseded');
    expect(workQueue.added).toEqual([]);
    expect(delayQueue.sent).toEqual([]);
  });

  it('sends an early timer on with the remaining delay, rounded up', async () => {
    // Prepare
    const { body, token } = await arm(10_000);
    clock.step(1_500);
    // Act
    const outcome = await fireTimer(body, deps);
    // Assess
    expect(outcome).toBe('rescheduled');
    expect(delayQueue.sent).toEqual([{ body, delaySeconds: 9 }]);
    expect(workQueue.added).toEqual([]);
    expect(await marks.isTimerArmed(KEY, token)).toBe(true);
  });

  it('chains a timer beyond 900 s in hops of at most 900 s', async () => {
    // Prepare
    const { body } = await arm(2_000_000);
    // Act
    const hops: string[] = [];
    for (;;) {
      const outcome = await fireTimer(body, deps);
      hops.push(outcome);
      if (outcome === 'fired') break;
      clock.step((delayQueue.sent.at(-1)?.delaySeconds ?? 0) * 1_000);
    }
    // Assess
    expect(delayQueue.sent.map((s) => s.delaySeconds)).toEqual([900, 900, 200]);
    expect(hops).toEqual([
      'rescheduled',
      'rescheduled',
      'rescheduled',
      'fired',
    ]);
    expect(workQueue.added).toEqual([KEY]);
  });

  it('drops a timer that an earlier one replaced, also before it is due', async () => {
    // Prepare: the earlier one's message is out.
    const { body: later } = await arm(60_000);
    const { token } = await arm(5_000);
    await marks.confirmTimer(KEY, token);
    // Act
    const early = await fireTimer(later, deps);
    clock.step(60_000);
    const due = await fireTimer(later, deps);
    // Assess
    expect([early, due]).toEqual(['superseded', 'superseded']);
    expect(workQueue.added).toEqual([]);
    expect(delayQueue.sent).toEqual([]);
  });

  it('lets the sync an early-fired timer caused arm its next timer (clock skew, F21)', async () => {
    // Prepare: due in 5 s, fired 0.8 s early (the firing clock runs behind).
    const { body, token } = await arm(5_000);
    clock.step(4_200);
    let next: string | undefined;
    workQueue.add = async (key: string) => {
      workQueue.added.push(key);
      // The sync runs before the firing disarms, and asks for +30 s.
      clock.step(300);
      next = await marks.armTimer(KEY, clock.now() + 30_000);
    };
    // Act
    const outcome = await fireTimer(body, deps);
    // Assess: the requeue survives the disarm of the fired timer.
    expect(outcome).toBe('fired');
    expect(next).toBeDefined();
    expect(await marks.isTimerArmed(KEY, next ?? '')).toBe(true);
    expect(await marks.isTimerArmed(KEY, token)).toBe(false);
  });

  it('still fires a timer that a later one replaced because it looked unsent, and leaves the later one armed', async () => {
    // Prepare: armed, sent, never confirmed; 30 s on a later timer replaces it.
    const { body } = await arm(60_000);
    clock.step(UNSENT_TIMER_MS + 1);
    const later = await marks.armTimer(KEY, clock.now() + 120_000);
    clock.step(60_000);
    // Act
    const outcome = await fireTimer(body, deps);
    // Assess
    expect(later).toBeDefined();
    expect(outcome).toBe('fired');
    expect(workQueue.added).toEqual([KEY]);
    expect(await marks.isTimerArmed(KEY, later ?? '')).toBe(true);
  });

  it('drops a duplicate delivery of a timer that already fired', async () => {
    // Prepare
    const { body } = await arm(1_000);
    clock.step(1_000);
    await fireTimer(body, deps);
    // Act
    const again = await fireTimer(body, deps);
    // Assess
    expect(again).toBe('superseded');
    expect(workQueue.added).toEqual([KEY]);
  });

  it.each([
    { name: 'not JSON', body: 'prod/kube-system/agent', problem: 'not JSON' },
    { name: 'JSON null', body: 'null', problem: 'JSON object' },
    { name: 'a JSON array', body: '[]', problem: 'JSON object' },
    {
      name: 'no key',
      body: '{"dueAtMs":1,"token":"t"}',
      problem: 'key is not a string',
    },
    {
      name: 'a malformed key',
      body: '{"key":"agent","dueAtMs":1,"token":"t"}',
      problem: 'malformed DaemonSet key',
    },
    {
      name: 'a string due time',
      body: `{"key":"${KEY}","dueAtMs":"1","token":"t"}`,
      problem: 'dueAtMs',
    },
    {
      name: 'no token',
      body: `{"key":"${KEY}","dueAtMs":1}`,
      problem: 'token',
    },
    {
      name: 'an empty token',
      body: `{"key":"${KEY}","dueAtMs":1,"token":""}`,
      problem: 'token',
    },
  ])(
    'rejects a body with $name as a poison message',
    async ({ body, problem }) => {
      // Act
      const error = await fireTimer(body, deps).catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(PoisonMessageError);
      expect((error as Error).message).toContain(problem);
      expect(workQueue.added).toEqual([]);
    }
  );
});
