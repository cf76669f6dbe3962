/** The watch-bridge's fleet-wide metrics, counted from one invocation's runs. */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordBridgeMetrics } from '#lib/handlers/watch-bridge-handler.js';

describe('recordBridgeMetrics', () => {
  afterEach(() => vi.restoreAllMocks());

  it('counts runs, failures, skipped registry items, events and skipped events', () => {
    // Prepare
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const metrics = new Metrics({
      namespace: 'Test',
      serviceName: 'watch-bridge',
    });
    // Act
    recordBridgeMetrics(metrics, [
      { cluster: 'a', outcome: 'done', events: 4 },
      { cluster: 'b', outcome: 'done', events: 1, skippedEvents: 2 },
      { cluster: 'c', outcome: 'lease-held', events: 0 },
      { cluster: 'd', outcome: 'failed', error: 'connect ECONNREFUSED' },
      {
        cluster: 'cluster#e',
        outcome: 'invalid-record',
        error: 'unknown field',
      },
    ]);
    metrics.publishStoredMetrics();
    // Assess
    const blob = JSON.parse(
      lines
        .join('')
        .split('\n')
        .find((l) => l.includes('"_aws"')) ?? '{}'
    ) as Record<string, unknown>;
    expect(blob).toMatchObject({
      BridgeRuns: 2,
      BridgeFailures: 1,
      InvalidClusterRecords: 1,
      BridgeEvents: 5,
      BridgeSkippedEvents: 2,
    });
  });
});
