/** EksClusterDirectory: asks EKS once an hour per cluster; failures are not kept. */
import { EKSClient } from '@aws-sdk/client-eks';
import type { STSClient } from '@aws-sdk/client-sts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AwsCallError } from '#lib/adapters/aws/aws-call-error.js';
import { EksClusterDirectory } from '#lib/adapters/aws/eks-cluster-directory.js';
import { FakeClock } from '../../../../helpers/fakes/fake-clock.js';

const auth = { type: 'eks' as const, clusterName: 'prod', region: 'eu-west-1' };

describe('EksClusterDirectory', () => {
  afterEach(() => vi.restoreAllMocks());

  it('returns what DescribeCluster reports, asking once an hour or when asked for a fresh answer', async () => {
    // Prepare
    const send = vi
      .spyOn(EKSClient.prototype, 'send')
      .mockImplementation(async () => ({
        cluster: {
          endpoint: 'https://x.eks.amazonaws.com',
          certificateAuthority: { data: 'Q0E=' },
        },
      }));
    const clock = new FakeClock();
    const directory = new EksClusterDirectory({
      sts: {} as STSClient,
      clock,
    });
    // Act
    const first = await directory.describe(auth, 'prod');
    await directory.describe(auth, 'prod');
    clock.step(60 * 60_000);
    await directory.describe(auth, 'prod');
    await directory.describe(auth, 'prod', true);
    // Assess
    expect(first).toEqual({
      endpoint: 'https://x.eks.amazonaws.com',
      caData: 'Q0E=',
    });
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('reports a cluster EKS does not know as an AwsCallError, and asks again next time', async () => {
    // Prepare
    const send = vi
      .spyOn(EKSClient.prototype, 'send')
      .mockImplementation(async () => {
        throw Object.assign(new Error('No cluster found for name: prod.'), {
          name: 'ResourceNotFoundException',
        });
      });
    const directory = new EksClusterDirectory({
      sts: {} as STSClient,
      clock: new FakeClock(),
    });
    // Act
    const error = await directory.describe(auth, 'prod').catch((e) => e);
    await directory.describe(auth, 'prod').catch(() => undefined);
    // Assess
    expect(error).toBeInstanceOf(AwsCallError);
    expect((error as Error).message).toContain(
      'EKS describe cluster prod in eu-west-1 failed: ResourceNotFoundException'
    );
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('refuses a cluster that reports no endpoint yet', async () => {
    // Prepare
    vi.spyOn(EKSClient.prototype, 'send').mockImplementation(async () => ({
      cluster: { status: 'CREATING' },
    }));
    const directory = new EksClusterDirectory({
      sts: {} as STSClient,
      clock: new FakeClock(),
    });
    // Act / Assess
    await expect(directory.describe(auth, 'prod')).rejects.toThrow(
      'EKS reported no endpoint or CA'
    );
  });
});
