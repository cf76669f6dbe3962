/**
 * The benchmark's plots render from measured data into SVG files (Vega-Lite,
 * no browser), one per measure, with the data beside them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServerlessRun, UpstreamRun } from '../../bench/converge.js';
import { mergeBenchData } from '../../bench/plot-data.js';
import { renderPlots } from '../../bench/plots.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-plots-'));

describe('renderPlots', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('draws convergence, rollout, writes by kind and reads per sync, and keeps the data', async () => {
    // Prepare
    const serverless = {
      nodes: 100,
      convergeMs: 4_000,
      series: [
        [0, 0],
        [2_000, 60],
        [4_000, 100],
      ],
      apiWrites: 103,
      writes: {
        'POST pods': 100,
        'POST events': 1,
        'PUT daemonsets/status': 2,
      },
      aws: { dynamoCalls: new Map([['UpdateItem q#', 7]]) },
      rollout: {
        ms: 12_000,
        series: [
          [0, 0],
          [6_000, 50],
          [12_000, 100],
        ],
        apiWrites: 300,
        writes: { 'DELETE pods': 200, 'POST pods': 100 },
      },
    } as unknown as ServerlessRun;
    const upstream = {
      nodes: 100,
      qps: 20,
      convergeMs: 9_000,
      series: [
        [0, 0],
        [9_000, 100],
      ],
      apiWrites: 104,
      writes: { 'POST pods': 100, 'POST events': 4 },
    } as unknown as UpstreamRun;
    const reads = [
      {
        nodes: 100,
        reader: 'cached',
        requestsPerSync: 2,
        kibPerSync: 5,
        p50Ms: 9,
      },
      {
        nodes: 1000,
        reader: 'cached',
        requestsPerSync: 2,
        kibPerSync: 5,
        p50Ms: 12,
      },
      {
        nodes: 1000,
        reader: 'naive',
        requestsPerSync: 23,
        kibPerSync: 6_800,
        p50Ms: 900,
      },
    ];
    // Act
    const files = await renderPlots(
      {
        converge: {
          serverless: [serverless],
          upstream: [upstream],
          raw: [
            {
              nodes: 100,
              createMs: 300,
              convergeMs: 900,
              series: [
                [0, 0],
                [900, 100],
              ],
              rollout: {
                ms: 2_000,
                series: [
                  [0, 0],
                  [2_000, 100],
                ],
                apiWrites: 400,
                writes: { 'DELETE pods': 300, 'POST pods': 100 },
              },
            },
          ],
        },
        reads,
      },
      dir
    );
    // Assess
    expect(files.map((f) => path.basename(f))).toEqual([
      'bench-data.json',
      'convergence.svg',
      'rollout.svg',
      'writes-by-kind.svg',
      'reads-per-sync.svg',
    ]);
    const svg = (name: string) => readFileSync(path.join(dir, name), 'utf8');
    expect(svg('convergence.svg')).toMatch(/^<svg /);
    expect(svg('convergence.svg')).toContain('kube-controller-manager, qps 20');
    expect(svg('convergence.svg')).toContain(
      'raw create loop (API server limit)'
    );
    expect(svg('rollout.svg')).toContain('updated, available pod');
    expect(svg('rollout.svg')).toContain('this product');
    expect(svg('rollout.svg')).toContain('raw replace loop (API server limit)');
    expect(svg('writes-by-kind.svg')).toContain('PUT daemonsets/status');
    expect(svg('reads-per-sync.svg')).toContain('naive');
    const data = JSON.parse(svg('bench-data.json'));
    expect(data.reads).toHaveLength(3);
    // Maps are written as objects, not as {}.
    expect(data.converge.serverless[0].aws.dynamoCalls).toEqual({
      'UpdateItem q#': 7,
    });
  });

  it('draws no rollout plot for data measured before rollouts', async () => {
    // Prepare
    const run = {
      nodes: 5,
      convergeMs: 1_000,
      series: [[0, 0]],
      writes: {},
    } as unknown as ServerlessRun;
    // Act
    const files = await renderPlots(
      { converge: { serverless: [run], upstream: [] } },
      path.join(dir, 'old')
    );
    // Assess
    expect(files.map((f) => path.basename(f))).not.toContain('rollout.svg');
  });

  it('writes only the data when no suite measured anything', async () => {
    // Act
    const files = await renderPlots({}, path.join(dir, 'empty'));
    // Assess
    expect(files.map((f) => path.basename(f))).toEqual(['bench-data.json']);
  });
});

describe('mergeBenchData', () => {
  it('keeps what the suites that did not run measured before', () => {
    // Prepare
    const reads = [
      {
        nodes: 5,
        reader: 'cached',
        requestsPerSync: 2,
        kibPerSync: 5,
        p50Ms: 1,
      },
    ];
    const converge = { serverless: [], upstream: [], raw: [] };
    // Act
    const merged = mergeBenchData(
      { reads, converge: { serverless: [], upstream: [] } },
      { converge }
    );
    // Assess
    expect(merged).toEqual({ reads, converge });
  });

  it('adds a run at a new node count to the node counts measured before, per contender', () => {
    // Prepare
    const run = (nodes: number, convergeMs: number) =>
      ({ nodes, convergeMs }) as unknown as ServerlessRun;
    const upstream = (nodes: number, qps: number, convergeMs: number) =>
      ({ nodes, qps, convergeMs }) as unknown as UpstreamRun;
    const previous = {
      converge: {
        serverless: [run(100, 1), run(1_000, 2)],
        upstream: [upstream(1_000, 20, 3), upstream(1_000, 1_000, 4)],
        raw: [],
      },
    };
    const fresh = {
      converge: {
        serverless: [run(1_000, 20), run(5_000, 50)],
        upstream: [upstream(5_000, 20, 60)],
        raw: [],
      },
    };
    // Act
    const merged = mergeBenchData(previous, fresh);
    // Assess
    expect(
      merged.converge?.serverless.map((r) => [r.nodes, r.convergeMs])
    ).toEqual([
      [100, 1],
      [1_000, 20],
      [5_000, 50],
    ]);
    expect(
      merged.converge?.upstream.map((r) => [r.nodes, r.qps, r.convergeMs])
    ).toEqual([
      [1_000, 20, 3],
      [1_000, 1_000, 4],
      [5_000, 20, 60],
    ]);
  });
});
