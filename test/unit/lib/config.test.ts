/** loadConfig: the opt-in flags, validated with the rest. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '#lib/config.js';
import { ConfigError } from '#lib/errors.js';

const env = {
  TABLE_NAME: 't',
  WORK_QUEUE_URL: 'https://sqs/q.fifo',
  DELAY_QUEUE_URL: 'https://sqs/d',
};

describe('loadConfig', () => {
  it('keeps metrics fleet-wide unless PER_CLUSTER_METRICS is true', () => {
    expect(loadConfig(env).perClusterMetrics).toBe(false);
    expect(
      loadConfig({ ...env, PER_CLUSTER_METRICS: 'TRUE' }).perClusterMetrics
    ).toBe(true);
  });

  it('refuses a PER_CLUSTER_METRICS that is not a boolean, naming it', () => {
    expect(() => loadConfig({ ...env, PER_CLUSTER_METRICS: 'yes' })).toThrow(
      ConfigError
    );
    expect(() => loadConfig({ ...env, PER_CLUSTER_METRICS: 'yes' })).toThrow(
      'PER_CLUSTER_METRICS must be true or false'
    );
  });
});
