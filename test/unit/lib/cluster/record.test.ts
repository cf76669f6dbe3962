import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidClusterRecordError,
  parseClusterRecord,
} from '#lib/cluster/record.js';
import { selfSignedPem } from '../../../helpers/self-signed-pem.js';

/** Returns the error `fn` throws (fails the test when it throws none). */
const thrown = (fn: () => unknown): InvalidClusterRecordError => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidClusterRecordError);
    return e as InvalidClusterRecordError;
  }
  throw new Error('expected an error');
};

describe('parseClusterRecord', () => {
  let dir: string;
  let caData: string;
  const record = (over: Record<string, unknown> = {}) => ({
    id: 'prod-eu.1',
    endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
    caData,
    auth: { type: 'eks', clusterName: 'prod_eu-1', region: 'eu-west-1' },
    ownership: 'apps/v1',
    bridgeMode: 'watch',
    ...over,
  });

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-record-'));
    caData = Buffer.from(selfSignedPem()).toString('base64');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    {
      name: 'eks auth',
      auth: { type: 'eks', clusterName: 'prod', region: 'eu-west-1' },
    },
    {
      name: 'eks auth through a role',
      auth: {
        type: 'eks',
        clusterName: 'prod',
        region: 'cn-north-1',
        roleArn: 'arn:aws:iam::123456789012:role/dsr/reconciler',
      },
    },
    {
      name: 'secret auth',
      auth: {
        type: 'secret',
        secretArn:
          'arn:aws:secretsmanager:us-east-1:123456789012:secret:dsr/prod-AbCdEf',
      },
    },
  ])('accepts a record with $name', ({ auth }) => {
    // Prepare
    const raw = record({ auth, bridgeMode: 'economy' });
    // Act
    const parsed = parseClusterRecord(raw);
    // Assess
    expect(parsed).toEqual(raw);
    expect(parsed).not.toBe(raw);
  });

  it.each([
    { apiBudget: { qps: 0, burst: 10 }, field: 'apiBudget.qps' },
    { apiBudget: { qps: 5, burst: 1.5 }, field: 'apiBudget.burst' },
    { apiBudget: { qps: '5', burst: 10 }, field: 'apiBudget.qps' },
  ])('refuses an API budget with a bad $field', ({ apiBudget, field }) => {
    // Act / Assess
    expect(
      thrown(() => parseClusterRecord(record({ apiBudget }))).fields
    ).toEqual([field]);
  });

  it('keeps a valid API budget', () => {
    // Act / Assess
    expect(
      parseClusterRecord(record({ apiBudget: { qps: 50, burst: 100 } }))
        .apiBudget
    ).toEqual({ qps: 50, burst: 100 });
  });

  it('accepts a kubeconfig record with an empty endpoint and CA', () => {
    // Prepare
    const raw = record({
      endpoint: '',
      caData: '',
      auth: { type: 'kubeconfig', path: '/tmp/kc', context: 'kind' },
    });
    // Act
    const parsed = parseClusterRecord(raw);
    // Assess
    expect(parsed.auth).toEqual({
      type: 'kubeconfig',
      path: '/tmp/kc',
      context: 'kind',
    });
    expect(parsed.endpoint).toBe('');
  });

  it.each([
    { name: 'an upper-case id', over: { id: 'Prod' }, field: 'id' },
    { name: 'an id ending in a dash', over: { id: 'prod-' }, field: 'id' },
    { name: 'an id too long', over: { id: 'a'.repeat(64) }, field: 'id' },
    { name: 'a slash in the id', over: { id: 'a/b' }, field: 'id' },
    {
      name: 'an http endpoint',
      over: { endpoint: 'http://10.0.0.1' },
      field: 'endpoint',
    },
    {
      name: 'an endpoint with a path',
      over: { endpoint: 'https://rancher/k8s/clusters/c-1' },
      field: 'endpoint',
    },
    {
      name: 'an endpoint with user info',
      over: { endpoint: 'https://u:p@host' },
      field: 'endpoint',
    },
    { name: 'a missing endpoint', over: { endpoint: '' }, field: 'endpoint' },
    {
      name: 'a CA that is not base64',
      over: { caData: 'a b' },
      field: 'caData',
    },
    {
      name: 'a CA without a certificate',
      over: { caData: Buffer.from('hello').toString('base64') },
      field: 'caData',
    },
    {
      name: 'a CA with a broken certificate',
      over: {
        caData: Buffer.from(
          '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'
        ).toString('base64'),
      },
      field: 'caData',
    },
    { name: 'a missing CA', over: { caData: undefined }, field: 'caData' },
    {
      name: 'another ownership',
      over: { ownership: 'v1' },
      field: 'ownership',
    },
    {
      name: 'another bridge mode',
      over: { bridgeMode: 'poll' },
      field: 'bridgeMode',
    },
    { name: 'an unknown field', over: { extra: 1 }, field: 'extra' },
    { name: 'no auth', over: { auth: undefined }, field: 'auth' },
    {
      name: 'an unknown auth type',
      over: { auth: { type: 'oidc' } },
      field: 'auth.type',
    },
    {
      name: 'a bad region',
      over: { auth: { type: 'eks', clusterName: 'c', region: 'Europe' } },
      field: 'auth.region',
    },
    {
      name: 'a bad EKS cluster name',
      over: { auth: { type: 'eks', clusterName: '-c', region: 'us-east-1' } },
      field: 'auth.clusterName',
    },
    {
      name: 'a bad role ARN',
      over: {
        auth: {
          type: 'eks',
          clusterName: 'c',
          region: 'us-east-1',
          roleArn: 'arn:aws:iam::1:user/x',
        },
      },
      field: 'auth.roleArn',
    },
    {
      name: 'a bad secret ARN',
      over: { auth: { type: 'secret', secretArn: 'my-secret' } },
      field: 'auth.secretArn',
    },
    {
      name: 'an unknown auth field',
      over: { auth: { type: 'secret', secretArn: 'x', token: 't' } },
      field: 'auth.token',
    },
    {
      name: 'a kubeconfig record with an endpoint',
      over: { auth: { type: 'kubeconfig', path: '/kc' }, caData: '' },
      field: 'endpoint',
    },
    {
      name: 'a kubeconfig record with a CA',
      over: { auth: { type: 'kubeconfig', path: '/kc' }, endpoint: '' },
      field: 'caData',
    },
    {
      name: 'a kubeconfig record without a path',
      over: {
        auth: { type: 'kubeconfig', path: '' },
        endpoint: '',
        caData: '',
      },
      field: 'auth.path',
    },
  ])('refuses $name, naming the field', ({ over, field }) => {
    // Prepare
    const raw = record(over);
    // Act
    const error = thrown(() => parseClusterRecord(raw));
    // Assess
    expect(error.fields).toContain(field);
    expect(error.message).toContain(field);
  });

  it('lists every problem at once and names a valid id', () => {
    // Prepare
    const raw = record({ endpoint: 'http://x', bridgeMode: 'x' });
    // Act
    const error = thrown(() => parseClusterRecord(raw));
    // Assess
    expect(error.fields).toEqual(['endpoint', 'bridgeMode']);
    expect(error.clusterId).toBe('prod-eu.1');
    expect(error.message).toMatch(/^invalid cluster record prod-eu\.1: /);
  });

  it('refuses a value that is not an object', () => {
    // Act
    const error = thrown(() => parseClusterRecord('prod'));
    // Assess
    expect(error.fields).toEqual(['record']);
    expect(error.clusterId).toBeUndefined();
  });
});
