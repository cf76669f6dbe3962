/**
 * The converge suite's tables: time to roll out per contender against
 * kube-controller-manager at its highest qps, and what the stack spent per
 * create and per rollout, in calls and in dollars.
 */
import { describe, expect, it } from 'vitest';
import type {
  ServerlessRun,
  StackWindow,
  UpstreamRun,
} from '../../bench/converge.js';
import {
  breakdownTable,
  convergeTable,
  countsTable,
  dollarsTable,
  perMillion,
  ratio,
  rolloutTable,
  usd,
} from '../../bench/converge-tables.js';
import type { RawRun } from '../../bench/raw-create.js';
import type { RolloutResult } from '../../bench/rollout.js';
import type { StackUsage } from '../../bench/usage-cost.js';

const newRollout = (ms: number, apiWrites: number): RolloutResult => ({
  ms,
  series: [
    [0, 0],
    [ms, 100],
  ],
  apiWrites,
  writes: { 'DELETE pods': apiWrites / 2, 'POST pods': apiWrites / 2 },
});

const newUsage = (o: Partial<StackUsage> = {}): StackUsage => ({
  reconcileInvocations: 4,
  reconcileBilledMs: 2_048,
  reconcileMemoryMb: 512,
  requeueInvocations: 0,
  dynamoReadUnits: 100,
  dynamoWriteUnits: 200,
  sqsFifoRequests: 12,
  sqsStandardRequests: 0,
  ...o,
});

const newWindow = (o: Partial<StackWindow> = {}): StackWindow => ({
  windowMs: 7_000,
  quiet: true,
  reconcileInvocations: 4,
  reconcileRecords: 4,
  syncs: 4,
  syncErrors: 0,
  creates: 100,
  deletes: 0,
  requeueInvocations: 0,
  kubeRequests: 120,
  kubeBytesRead: 10_240,
  aws: {
    workMessages: 4,
    delayMessages: 0,
    sqsCalls: new Map([['SendMessageBatch', 4]]),
    dynamoCalls: new Map([['UpdateItem q#', 20]]),
    dynamoErrors: new Map(),
    dynamoTotal: 30,
  },
  usage: newUsage(),
  ...o,
});

const newServerlessRun = (o: Partial<ServerlessRun> = {}): ServerlessRun => ({
  ...newWindow(),
  nodes: 100,
  convergeMs: 2_000,
  series: [[0, 0]],
  apiWrites: 128,
  writes: { 'POST pods': 100 },
  nodeCreationMs: 500,
  rollout: {
    ...newWindow({
      creates: 100,
      deletes: 100,
      aws: { ...newWindow().aws, dynamoCalls: new Map([['GetItem exp#', 3]]) },
    }),
    ...newRollout(12_000, 210),
  },
  ...o,
});

const newUpstreamRun = (qps: number, rolloutMs: number): UpstreamRun => ({
  nodes: 100,
  qps,
  convergeMs: 4_000,
  series: [[0, 0]],
  apiWrites: 128,
  writes: { 'POST pods': 100 },
  nodeCreationMs: 500,
  rollout: newRollout(rolloutMs, 220),
});

const newRawRun = (o: Partial<RawRun> = {}): RawRun => ({
  nodes: 100,
  createMs: 300,
  convergeMs: 400,
  series: [[0, 0]],
  rollout: newRollout(3_000, 300),
  ...o,
});

/** Returns the table's body rows as cells. */
const cells = (table: string): string[][] =>
  table
    .split('\n')
    .slice(2)
    .map((l) =>
      l
        .slice(2, -2)
        .split(' | ')
        .map((c) => c.trim())
    );

describe('ratio', () => {
  it.each([
    {
      name: 'divides by the reference',
      ms: 12_000,
      ref: 10_000,
      want: '1.20×',
    },
    {
      name: 'shows a dash without a reference',
      ms: 1,
      ref: undefined,
      want: '-',
    },
    { name: 'shows a dash for a zero reference', ms: 1, ref: 0, want: '-' },
  ])('$name', ({ ms, ref, want }) => {
    // Act / Assess
    expect(ratio(ms, ref)).toBe(want);
  });
});

describe('usd', () => {
  it.each([
    { dollars: 0.000123456, want: '$0.000123' },
    { dollars: 0.1234567, want: '$0.1235' },
  ])('writes $dollars as $want', ({ dollars, want }) => {
    // Act / Assess
    expect(usd(dollars)).toBe(want);
  });
});

describe('perMillion', () => {
  it.each([
    { price: 0.625 / 1e6, want: '$0.625/M' },
    { price: 0.125 / 1e6, want: '$0.125/M' },
    { price: 0.2 / 1e6, want: '$0.20/M' },
    { price: 0.5 / 1e6, want: '$0.50/M' },
  ])('writes $want', ({ price, want }) => {
    // Act / Assess
    expect(perMillion(price)).toBe(want);
  });
});

describe('rolloutTable', () => {
  it('compares every contender’s median with kube-controller-manager at its highest qps', () => {
    // Prepare
    const runs = {
      serverless: [newServerlessRun()],
      upstream: [newUpstreamRun(20, 40_000), newUpstreamRun(1000, 10_000)],
      raw: [newRawRun()],
    };
    // Act
    const table = rolloutTable(runs);
    // Assess
    expect(table).toContain('median ÷ kube-controller-manager qps 1000');
    expect(
      cells(table).map(([who, n, , , median, vs, writes]) => [
        who?.split(' ')[0],
        n,
        median,
        vs,
        writes,
      ])
    ).toEqual([
      ['raw', '100', '3.0', '0.30×', '3.00'],
      ['serverless', '100', '12.0', '1.20×', '2.10'],
      ['upstream', '100', '40.0', '4.00×', '2.20'],
      ['upstream', '100', '10.0', '1.00×', '2.20'],
    ]);
  });

  it('says so when no run measured a rollout', () => {
    // Prepare
    const runs = {
      serverless: [newServerlessRun({ rollout: undefined })],
      upstream: [],
      raw: [newRawRun({ rollout: undefined })],
    };
    // Act / Assess
    expect(rolloutTable(runs)).toBe('Rolling update: not measured.');
  });
});

describe('convergeTable', () => {
  it('lists the raw loop first, then the controllers with their writes per pod', () => {
    // Prepare
    const runs = {
      serverless: [newServerlessRun()],
      upstream: [newUpstreamRun(20, 40_000)],
      raw: [newRawRun()],
    };
    // Act
    const rows = cells(convergeTable(runs));
    // Assess
    expect(rows.map((r) => [r[0]?.split(' ')[0], r[4], r[6]])).toEqual([
      ['raw', '0.4', '1.00'],
      ['serverless', '2.0', '1.28'],
      ['upstream', '4.0', '1.28'],
    ]);
  });

  it('puts the raw loop through kube-scheduler right after the bound one', () => {
    // Prepare
    const scheduled = { createMs: 500, convergeMs: 1_500, series: [] };
    const runs = {
      serverless: [newServerlessRun()],
      upstream: [],
      raw: [newRawRun({ scheduled })],
    };
    // Act
    const rows = cells(convergeTable(runs));
    // Assess
    expect(rows.map((r) => [r[0]?.split(':')[0], r[3], r[6]])).toEqual([
      ['raw create loop', '0.4 (posted in 0.3)', '1.00'],
      ['raw create loop through kube-scheduler', '1.5 (posted in 0.5)', '-'],
      ['serverless (bridge + SQS + reconcile Lambda)', '2.0', '1.28'],
    ]);
  });
});

describe('countsTable', () => {
  it('sets the KiB a window read beside the KiB of the pods it left, a dash where unmeasured', () => {
    // Prepare
    const run = newServerlessRun({ kubeBytesRead: 20_480, podBytes: 5_120 });
    // Act
    const rows = cells(countsTable([run]));
    // Assess
    const header = countsTable([run]).split('\n')[0]?.split(' | ') ?? [];
    const read = header.findIndex((h) => h.includes('KiB read'));
    const pods = header.findIndex((h) => h.includes('KiB of its pods'));
    expect(pods).toBe(read + 1);
    expect(rows.map((r) => [r[read], r[pods]])).toEqual([
      ['20.0', '5.0'],
      ['10.0', '-'],
    ]);
  });

  it('sets the containers a window started (those ended at their timeout) and the peak RSS of the stack, a dash where unmeasured', () => {
    const run = newServerlessRun({
      containers: { started: 3, timedOut: 1 },
      peakRssBytes: 300 * 1024 * 1024,
    });

    const table = countsTable([run]);

    const header = table.split('\n')[0]?.split(' | ') ?? [];
    const started = header.findIndex((h) => h.includes('containers started'));
    const rss = header.findIndex((h) => h.includes('peak RSS'));
    expect(cells(table).map((r) => [r[started], r[rss]])).toEqual([
      ['3 (1)', '300'],
      ['-', '-'],
    ]);
  });
});

describe('dollarsTable', () => {
  it('prices the create and the rollout of each run', () => {
    // Prepare
    const run = newServerlessRun();
    // Act
    const rows = cells(dollarsTable([run]));
    // Assess
    expect(rows.map((r) => r[0])).toEqual(['create', 'rollout']);
    // 2.048 s × 0.5 GB = 1.024 GB-s; with 4 requests, 100 read and 200
    // write units and 12 FIFO requests: $0.00015795.
    expect(rows[0]?.[4]).toBe('1.02');
    expect(rows[0]?.[11]).toBe('**$0.000158**');
  });

  it('says so when no run was priced', () => {
    // Prepare
    const run = newServerlessRun({ usage: undefined, rollout: undefined });
    // Act / Assess
    expect(dollarsTable([run])).toBe('Cost in dollars: not measured.');
  });
});

describe('breakdownTable', () => {
  it('has a column per node count and phase', () => {
    // Prepare
    const run = newServerlessRun();
    // Act
    const table = breakdownTable([run], (w) => w.aws.dynamoCalls, 'op');
    // Assess
    expect(table.split('\n')[0]).toBe(
      '| op | 100 nodes, create (each run) | 100 nodes, rollout (each run) |'
    );
    expect(cells(table)).toEqual([
      ['GetItem exp#', '0', '3'],
      ['UpdateItem q#', '20', '0'],
    ]);
  });
});
