/**
 * A ValidatingAdmissionPolicy and its binding that refuse AdvancedDaemonSet
 * creates in one namespace: a real admission refusal, as a policy engine
 * (Kyverno, Gatekeeper) gives one, without a webhook server. `always`
 * refuses dry runs too; `real` lets dry runs pass and refuses the write
 * itself (a policy that changed between the two).
 */
import type { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import { advancedDaemonSetsPath } from '../../testbed/advanced-daemonset-crd.js';
import { eventually } from './stack.js';

const API = '/apis/admissionregistration.k8s.io/v1';

/** The message of every refusal. */
export const REFUSAL = 'migrations are refused here';

/** Installs the policy; resolves once the API server enforces it. */
export const refuseAdvancedDaemonSets = async (
  admin: KubeHttp,
  ns: string,
  mode: 'always' | 'real'
): Promise<{ remove(): Promise<void> }> => {
  const name = `${ns}-${mode}`;
  await admin.request(
    'create policy',
    'POST',
    `${API}/validatingadmissionpolicies`,
    {
      body: JSON.stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            namespaceSelector: {
              matchLabels: { 'kubernetes.io/metadata.name': ns },
            },
            resourceRules: [
              {
                apiGroups: ['apps.dsr.dev'],
                apiVersions: ['*'],
                operations: ['CREATE'],
                resources: ['advanceddaemonsets'],
              },
            ],
          },
          validations: [
            {
              expression:
                mode === 'always'
                  ? 'false'
                  : 'has(request.dryRun) && request.dryRun == true',
              message: REFUSAL,
            },
          ],
        },
      }),
    }
  );
  await admin.request(
    'create binding',
    'POST',
    `${API}/validatingadmissionpolicybindings`,
    {
      body: JSON.stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name },
        spec: { policyName: name, validationActions: ['Deny'] },
      }),
    }
  );
  // A probe that would run nowhere: once it is refused, the policy holds.
  const probe = {
    apiVersion: 'apps.dsr.dev/v1beta1',
    kind: 'AdvancedDaemonSet',
    metadata: { name: 'policy-probe' },
    spec: {
      selector: { matchLabels: { app: 'policy-probe' } },
      template: {
        metadata: { labels: { app: 'policy-probe' } },
        spec: {
          nodeSelector: { 'policy-probe': 'none' },
          containers: [{ name: 'c', image: 'probe' }],
        },
      },
    },
  };
  /** Returns whether a create of the probe is refused now. */
  const refused = async (): Promise<boolean> => {
    try {
      await admin.request('create probe', 'POST', advancedDaemonSetsPath(ns), {
        body: JSON.stringify(probe),
        ...(mode === 'always' ? { query: { dryRun: 'All' } } : {}),
      });
    } catch (e) {
      if (String(e).includes(REFUSAL)) return true;
      throw e;
    }
    if (mode === 'real') {
      await admin.request(
        'delete probe',
        'DELETE',
        `${advancedDaemonSetsPath(ns)}/policy-probe`
      );
    }
    return false;
  };
  await eventually(`policy ${name} enforced`, refused);
  return {
    remove: async () => {
      await admin.request(
        'delete binding',
        'DELETE',
        `${API}/validatingadmissionpolicybindings/${name}`
      );
      await admin.request(
        'delete policy',
        'DELETE',
        `${API}/validatingadmissionpolicies/${name}`
      );
      await eventually(`policy ${name} lifted`, async () => !(await refused()));
    },
  };
};
