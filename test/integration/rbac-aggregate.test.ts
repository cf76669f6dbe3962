/**
 * infra/kubernetes/rbac-aggregate-advanced.yaml puts the own kind into
 * Kubernetes' built-in view, edit and admin roles through the cluster's
 * ClusterRole aggregation: a user bound to `view` in a namespace may read
 * AdvancedDaemonSets there and not change them; `edit` and `admin` may.
 */
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubeApiError } from '#lib/errors.js';
import { waitFor } from '#lib/local-cluster/processes.js';
import { ensureAdvancedDaemonSetCrd } from '../testbed/advanced-daemonset-crd.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import { adminHttp } from './sync-loop.js';

const ROLES = loadAll(
  readFileSync(
    new URL(
      '../../infra/kubernetes/rbac-aggregate-advanced.yaml',
      import.meta.url
    ),
    'utf8'
  )
) as { metadata: { name: string } }[];
const CLUSTER_ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

interface AccessReview {
  status?: { allowed?: boolean };
}

describe('the own kind in the view, edit and admin roles', () => {
  const ns = `rbac-agg-${Date.now().toString(36)}`;
  let admin: KubeHttp;

  /** Whether `user`, bound to `role` in the namespace, may `verb` the kind. */
  const allowed = async (user: string, verb: string): Promise<boolean> => {
    const review = await admin.request<AccessReview>(
      'review access',
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        body: JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user,
            resourceAttributes: {
              namespace: ns,
              group: 'apps.dsr.dev',
              resource: 'advanceddaemonsets',
              verb,
            },
          },
        }),
      }
    );
    return review.status?.allowed === true;
  };

  beforeAll(async () => {
    admin = adminHttp();
    await ensureAdvancedDaemonSetCrd(admin);
    await createNamespace(admin, ns);
    for (const role of ROLES) {
      await admin
        .request('create clusterrole', 'POST', CLUSTER_ROLES, {
          body: JSON.stringify(role),
        })
        .catch((e: unknown) => {
          if (!(e instanceof KubeApiError && e.statusCode === 409)) throw e;
        });
    }
    for (const role of ['view', 'edit', 'admin']) {
      await admin.request(
        'bind role',
        'POST',
        `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
        {
          body: JSON.stringify({
            metadata: { name: `${role}-user` },
            roleRef: {
              apiGroup: 'rbac.authorization.k8s.io',
              kind: 'ClusterRole',
              name: role,
            },
            subjects: [
              {
                apiGroup: 'rbac.authorization.k8s.io',
                kind: 'User',
                name: `${ns}-${role}`,
              },
            ],
          }),
        }
      );
    }
  });

  afterAll(async () => {
    await deleteNamespace(admin, ns);
    admin.close();
  });

  it('lets view read and not write, edit and admin write', async () => {
    // Act: the aggregation controller merges the rules within seconds.
    await waitFor(
      'the view role aggregated',
      async () => ((await allowed(`${ns}-view`, 'list')) ? true : undefined),
      60_000,
      250
    );
    await waitFor(
      'the admin role aggregated',
      async () => ((await allowed(`${ns}-admin`, 'create')) ? true : undefined),
      60_000,
      250
    );
    const verdicts = Object.fromEntries(
      await Promise.all(
        ['view', 'edit', 'admin'].flatMap((role) =>
          ['get', 'watch', 'create', 'patch', 'delete'].map(
            async (verb) =>
              [`${role} ${verb}`, await allowed(`${ns}-${role}`, verb)] as const
          )
        )
      )
    );

    // Assess
    expect(verdicts).toEqual({
      'view get': true,
      'view watch': true,
      'view create': false,
      'view patch': false,
      'view delete': false,
      'edit get': true,
      'edit watch': true,
      'edit create': true,
      'edit patch': true,
      'edit delete': true,
      'admin get': true,
      'admin watch': true,
      'admin create': true,
      'admin patch': true,
      'admin delete': true,
    });
    expect(await allowed('nobody', 'get')).toBe(false);
  });
});
