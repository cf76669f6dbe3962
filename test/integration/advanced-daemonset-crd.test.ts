/**
 * The own kind's CRD (infra/kubernetes/advanced-daemonset-crd.yaml) on the
 * real API server: it installs, applies Kruise's defaults from the schema,
 * and rejects every invalid object that Kruise's validating webhook rejects
 * and a schema or CEL rule can express (spec/kruise-ads.md §1.4, §1.6), one
 * test per rule, each with the rule's message. A Kruise v1beta1 manifest is
 * accepted with only apiVersion and kind changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubeApiError } from '#lib/errors.js';
import {
  advancedDaemonSetsPath,
  ensureAdvancedDaemonSetCrd,
} from '../testbed/advanced-daemonset-crd.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import { adminHttp } from './sync-loop.js';

type Obj = Record<string, unknown>;

/** A minimal valid object; `spec` fields are merged over it. */
const manifest = (name: string, spec: Obj = {}, template?: Obj): Obj => ({
  apiVersion: 'apps.dsr.dev/v1beta1',
  kind: 'AdvancedDaemonSet',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: template ?? {
      metadata: { labels: { app: 'agent' } },
      spec: { containers: [{ name: 'agent', image: 'registry.local/a:1' }] },
    },
    ...spec,
  },
});

describe('the AdvancedDaemonSet CRD (apps.dsr.dev/v1beta1)', () => {
  const ns = `crd-${Date.now().toString(36)}`;
  const path = advancedDaemonSetsPath(ns);
  let http: KubeHttp;
  let seq = 0;

  /** Creates `obj`; returns the stored object or the rejection. */
  const create = async (obj: Obj): Promise<Obj | KubeApiError> => {
    try {
      return await http.request<Obj>('create ads', 'POST', path, {
        body: JSON.stringify(obj),
      });
    } catch (e) {
      if (e instanceof KubeApiError) return e;
      throw e;
    }
  };
  const name = () => `ads-${++seq}`;

  /** Asserts that `obj` is rejected as invalid (422) with `message`. */
  const expectRejected = async (obj: Obj, message: string) => {
    const result = await create(obj);
    expect(result).toBeInstanceOf(KubeApiError);
    const error = result as KubeApiError;
    expect(error.statusCode).toBe(422);
    expect(error.message).toContain(message);
  };

  beforeAll(async () => {
    http = adminHttp();
    await ensureAdvancedDaemonSetCrd(http);
    await createNamespace(http, ns);
  });

  afterAll(async () => {
    await deleteNamespace(http, ns);
    http.close();
  });

  describe('defaults (Kruise SetDefaultsDaemonSetV1beta1, in the schema)', () => {
    it('stores burstReplicas 250, revisionHistoryLimit 10 and a Standard RollingUpdate', async () => {
      // Act
      const stored = (await create(manifest(name()))) as {
        spec: Obj & { updateStrategy: Obj };
      };
      // Assess
      expect(stored.spec.burstReplicas).toBe(250);
      expect(stored.spec.revisionHistoryLimit).toBe(10);
      expect(stored.spec.updateStrategy).toEqual({
        type: 'RollingUpdate',
        rollingUpdate: { rollingUpdateType: 'Standard' },
      });
    });

    it('leaves the pod template as given (schemaless, like Kruise)', async () => {
      // Prepare
      const template = {
        metadata: { labels: { app: 'agent' } },
        spec: {
          containers: [{ name: 'agent', image: 'a:1', unknownField: 'kept' }],
        },
      };
      // Act
      const stored = (await create(manifest(name(), {}, template))) as {
        spec: { template: Obj };
      };
      // Assess
      expect(stored.spec.template).toEqual(template);
    });
  });

  it('accepts a Kruise apps.kruise.io/v1beta1 manifest with only apiVersion and kind changed', async () => {
    // Prepare: the fields of Kruise's v1beta1 DaemonSet, as a user writes them.
    const kruise = {
      apiVersion: 'apps.dsr.dev/v1beta1',
      kind: 'AdvancedDaemonSet',
      metadata: { name: name(), labels: { team: 'infra' } },
      spec: {
        selector: {
          matchLabels: { app: 'agent' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['node'] }],
        },
        template: {
          metadata: { labels: { app: 'agent', tier: 'node' } },
          spec: {
            restartPolicy: 'Always',
            containers: [{ name: 'agent', image: 'registry.local/a:1' }],
          },
        },
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: {
            rollingUpdateType: 'InPlaceIfPossible',
            maxUnavailable: '10%',
            partition: 3,
            selector: { matchLabels: { canary: 'true' } },
            paused: false,
          },
        },
        scaleStrategy: { partitionedScaling: true },
        burstReplicas: '50%',
        minReadySeconds: 10,
        revisionHistoryLimit: 5,
        lifecycle: {
          preDelete: {
            labelsHandler: { 'example.com/drain': 'true' },
            finalizersHandler: ['example.com/cleanup'],
            markPodNotReady: true,
          },
        },
      },
    };
    // Act
    const stored = await create(kruise);
    // Assess
    expect(stored).not.toBeInstanceOf(KubeApiError);
    expect((stored as { spec: Obj }).spec).toEqual(kruise.spec);
  });

  describe('validation (Kruise vdaemonset.kb.io rules, as CEL)', () => {
    it.each([
      {
        name: 'TestValidateDaemonSetV1beta1: selector match (matchExpressions)',
        spec: {
          selector: {
            matchExpressions: [
              { key: 'app', operator: 'In', values: ['agent'] },
            ],
          },
        },
      },
      {
        name: 'TestValidateDaemonSetUpdateStrategyV1beta1: OnDelete',
        spec: { updateStrategy: { type: 'OnDelete' } },
      },
      {
        name: 'TestValidateDaemonSetUpdateStrategyV1beta1: missing rollingUpdate',
        spec: { updateStrategy: { type: 'RollingUpdate' } },
      },
      {
        name: 'TestValidateRollingUpdateDaemonSetV1beta1: maxSurge alone, 50% ok',
        spec: {
          updateStrategy: {
            rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 },
          },
        },
      },
      {
        name: 'TestValidateRollingUpdateDaemonSetV1beta1: partition ok (int and %)',
        spec: {
          updateStrategy: {
            rollingUpdate: { maxUnavailable: '100%', partition: '30%' },
          },
          burstReplicas: '10%',
        },
      },
      {
        name: 'TestValidateRollingUpdateDaemonSetV1beta1: InPlaceIfPossible with maxUnavailable',
        spec: {
          updateStrategy: {
            rollingUpdate: {
              rollingUpdateType: 'InPlaceIfPossible',
              maxUnavailable: 2,
              partition: 1,
            },
          },
        },
      },
    ])('accepts a valid object ($name)', async ({ spec }) => {
      const stored = await create(manifest(name(), spec));
      expect(stored).not.toBeInstanceOf(KubeApiError);
    });

    it('V3: rejects an empty selector (TestValidateDaemonSetSpecV1beta1: empty selector)', async () => {
      await expectRejected(
        manifest(name(), { selector: { matchLabels: {} } }),
        'empty selector is invalid for daemonset'
      );
    });

    it('V2: rejects matchLabels the template labels do not carry (TestValidateDaemonSetV1beta1: selector not match)', async () => {
      await expectRejected(
        manifest(name(), { selector: { matchLabels: { app: 'other' } } }),
        '`selector` does not match template `labels`'
      );
    });

    it('V2: rejects matchExpressions the template labels do not satisfy', async () => {
      await expectRejected(
        manifest(name(), {
          selector: {
            matchExpressions: [
              { key: 'app', operator: 'NotIn', values: ['agent'] },
            ],
          },
        }),
        '`selector` does not match template `labels`'
      );
    });

    it('V5: rejects a restartPolicy other than Always (TestValidateDaemonSetSpecV1beta1: restartPolicy)', async () => {
      await expectRejected(
        manifest(
          name(),
          {},
          {
            metadata: { labels: { app: 'agent' } },
            spec: {
              restartPolicy: 'OnFailure',
              containers: [{ name: 'a', image: 'a' }],
            },
          }
        ),
        'spec.template.spec.restartPolicy: Unsupported value: "OnFailure"'
      );
    });

    it('V6: rejects activeDeadlineSeconds (TestValidateDaemonSetSpecV1beta1: activeDeadlineSeconds)', async () => {
      await expectRejected(
        manifest(
          name(),
          {},
          {
            metadata: { labels: { app: 'agent' } },
            spec: {
              activeDeadlineSeconds: 30,
              containers: [{ name: 'a', image: 'a' }],
            },
          }
        ),
        'activeDeadlineSeconds in DaemonSet is not Supported'
      );
    });

    it('V7: rejects a negative minReadySeconds', async () => {
      await expectRejected(
        manifest(name(), { minReadySeconds: -1 }),
        'spec.minReadySeconds: Invalid value: -1: spec.minReadySeconds in body should be greater than or equal to 0'
      );
    });

    it('V7: rejects a negative revisionHistoryLimit (TestValidateDaemonSetSpecV1beta1: revisionHistoryLimit)', async () => {
      await expectRejected(
        manifest(name(), { revisionHistoryLimit: -1 }),
        'spec.revisionHistoryLimit in body should be greater than or equal to 0'
      );
    });

    it('V8: rejects a lifecycle.inPlaceUpdate hook (TestValidateDaemonSetSpecV1beta1: inPlaceUpdate hook)', async () => {
      await expectRejected(
        manifest(name(), {
          lifecycle: { inPlaceUpdate: { labelsHandler: { a: 'b' } } },
        }),
        'inPlaceUpdate hook has not supported yet'
      );
    });

    it('V9: rejects an unknown updateStrategy type (TestValidateDaemonSetUpdateStrategyV1beta1: invalid type)', async () => {
      await expectRejected(
        manifest(name(), { updateStrategy: { type: 'Recreate' } }),
        'spec.updateStrategy.type: Unsupported value: "Recreate"'
      );
    });

    it.each([
      { field: 'maxUnavailable', value: '150%' },
      { field: 'maxUnavailable', value: -1 },
      { field: 'maxSurge', value: 'abc' },
      { field: 'partition', value: '101%' },
      { field: 'partition', value: -2 },
    ])(
      'V10/V12: rejects $field $value (TestValidateRollingUpdateDaemonSetV1beta1: 150% rejected)',
      async ({ field, value }) => {
        await expectRejected(
          manifest(name(), {
            updateStrategy: {
              type: 'RollingUpdate',
              rollingUpdate: {
                ...(field === 'maxSurge' ? { maxUnavailable: 0 } : {}),
                [field]: value,
              },
            },
          }),
          `${field} must be a non-negative integer or a percentage from 0% to 100%`
        );
      }
    );

    it('V10: rejects maxSurge and maxUnavailable both non-zero (TestValidateRollingUpdateDaemonSetV1beta1: both)', async () => {
      await expectRejected(
        manifest(name(), {
          updateStrategy: {
            rollingUpdate: { maxSurge: 1, maxUnavailable: '10%' },
          },
        }),
        'maxSurge may not be set when maxUnavailable is non-zero'
      );
    });

    it('V10: rejects maxSurge and maxUnavailable both zero (TestValidateRollingUpdateDaemonSetV1beta1: both-zero)', async () => {
      await expectRejected(
        manifest(name(), {
          updateStrategy: {
            rollingUpdate: { maxSurge: '0%', maxUnavailable: 0 },
          },
        }),
        'maxUnavailable cannot be 0 when maxSurge is 0'
      );
    });

    it('V11: rejects maxSurge with InPlaceIfPossible (TestValidateRollingUpdateDaemonSetV1beta1: InPlace+surge rejected)', async () => {
      await expectRejected(
        manifest(name(), {
          updateStrategy: {
            rollingUpdate: {
              rollingUpdateType: 'InPlaceIfPossible',
              maxSurge: 1,
              maxUnavailable: 0,
            },
          },
        }),
        'maxSurge must be 0 for InPlaceIfPossible type'
      );
    });

    it('V11: rejects an unknown rollingUpdateType (TestValidateRollingUpdateDaemonSetV1beta1: Invalid type)', async () => {
      await expectRejected(
        manifest(name(), {
          updateStrategy: { rollingUpdate: { rollingUpdateType: 'Surging' } },
        }),
        'spec.updateStrategy.rollingUpdate.rollingUpdateType: Unsupported value: "Surging"'
      );
    });

    it.each([0, -3, '0%', 'fast'])(
      'rejects burstReplicas %s (Kruise leaves it unchecked: #2512)',
      async (value) => {
        await expectRejected(
          manifest(name(), { burstReplicas: value }),
          'burstReplicas must be a positive integer or a percentage from 1% to 100%'
        );
      }
    );

    it('U1: rejects a change of the selector (TestValidateDaemonSetUpdateV1beta1: selector change rejected)', async () => {
      // Prepare
      const created = (await create(manifest(name()))) as {
        metadata: { name: string };
      };
      const objectPath = `${path}/${created.metadata.name}`;
      // Act
      const result = await http
        .request('patch ads', 'PATCH', objectPath, {
          body: JSON.stringify({
            spec: {
              selector: { matchLabels: { app: 'agent', extra: 'x' } },
              template: {
                metadata: { labels: { app: 'agent', extra: 'x' } },
              },
            },
          }),
          contentType: 'application/merge-patch+json',
        })
        .catch((e: unknown) => e);
      // Assess
      expect(result).toBeInstanceOf(KubeApiError);
      expect((result as KubeApiError).statusCode).toBe(422);
      expect((result as KubeApiError).message).toContain(
        'selector is immutable'
      );
    });

    it('U1: accepts changes to every other field (TestValidateDaemonSetUpdateV1beta1: burstReplicas change ok)', async () => {
      // Prepare
      const created = (await create(manifest(name()))) as {
        metadata: { name: string };
      };
      // Act
      const updated = await http.request<{ spec: Obj }>(
        'patch ads',
        'PATCH',
        `${path}/${created.metadata.name}`,
        {
          body: JSON.stringify({
            spec: {
              burstReplicas: 10,
              minReadySeconds: 5,
              revisionHistoryLimit: 3,
              scaleStrategy: { partitionedScaling: true },
              updateStrategy: { rollingUpdate: { partition: '50%' } },
            },
          }),
          contentType: 'application/merge-patch+json',
        }
      );
      // Assess
      expect(updated.spec.burstReplicas).toBe(10);
      expect(updated.spec.revisionHistoryLimit).toBe(3);
    });
  });
});
