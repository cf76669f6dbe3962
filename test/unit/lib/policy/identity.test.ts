/** Who the product is on a cluster: one field manager per deployment. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '#lib/config.js';
import { findRivalDaemonSetController } from '#lib/policy/fight-detection.js';
import { fieldManagerFor, USER_AGENT } from '#lib/policy/identity.js';

const env = {
  TABLE_NAME: 't',
  WORK_QUEUE_URL: 'https://sqs/q.fifo',
  DELAY_QUEUE_URL: 'https://sqs/d',
};

describe('fieldManagerFor', () => {
  it('names each deployment apart, and local runs by the bare name', () => {
    expect(fieldManagerFor('svc-prod-eu-west-1')).toBe(
      `${USER_AGENT}.svc-prod-eu-west-1`
    );
    expect(fieldManagerFor(undefined)).toBe(USER_AGENT);
  });

  it('takes the deployment id from DEPLOYMENT_ID, once', () => {
    expect(
      loadConfig({ ...env, DEPLOYMENT_ID: ' svc-dev ' }).deploymentId
    ).toBe('svc-dev');
    expect(loadConfig(env)).not.toHaveProperty('deploymentId');
  });
});

describe('findRivalDaemonSetController (clusters check and add)', () => {
  it('takes no deployment of this product for a rival, and any other manager for one', () => {
    const ours = [
      {
        daemonSet: 'kube-system/agent',
        managers: [USER_AGENT, fieldManagerFor('svc-prod-eu-west-1')],
      },
    ];
    expect(findRivalDaemonSetController(ours)).toBeUndefined();
    expect(
      findRivalDaemonSetController([
        ...ours,
        { daemonSet: 'kube-system/kube-proxy', managers: ['eks-controller'] },
      ])
    ).toEqual({
      daemonSet: 'kube-system/kube-proxy',
      manager: 'eks-controller',
    });
  });
});
