/**
 * A ValidatingAdmissionPolicy and its binding that refuse AdvancedDaemonSet
 * creates in one namespace: a real admission refusal, as a policy engine
 * (Kyverno, Gatekeeper) gives one, without a webhook server. `always`
 * refuses dry runs too; `real` lets dry runs pass and refuses the write
 * itself (a policy that changed between the two). refuseByWebhook does the
 * same through a real validating webhook.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { selfSignedKeyPair } from '../../helpers/self-signed-pem.js';
import { advancedDaemonSetsPath } from '../../testbed/advanced-daemonset-crd.js';
import { eventually } from './stack.js';

const API = '/apis/admissionregistration.k8s.io/v1';

/** The message of every refusal. */
export const REFUSAL = 'migrations are refused here';

/** A probe that would run nowhere: once it is refused, the refusal holds. */
const PROBE = {
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

/** Returns a check of whether a create of the probe is refused now. */
const probeRefusal =
  (admin: KubeHttp, ns: string, mode: 'always' | 'real') =>
  async (): Promise<boolean> => {
    try {
      await admin.request('create probe', 'POST', advancedDaemonSetsPath(ns), {
        body: JSON.stringify(PROBE),
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
  const refused = probeRefusal(admin, ns, mode);
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

/**
 * Serves a validating webhook on 127.0.0.1 (HTTPS, a self-signed
 * certificate) that refuses every AdvancedDaemonSet create in `ns`, dry runs
 * included (it declares no side effects, so dry runs reach it).
 */
export const refuseByWebhook = async (
  admin: KubeHttp,
  ns: string
): Promise<{ remove(): Promise<void> }> => {
  const { cert, key } = selfSignedKeyPair('refusing-webhook', '127.0.0.1');
  const server = https.createServer({ cert, key }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const review = JSON.parse(body) as { request?: { uid?: string } };
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: {
            uid: review.request?.uid,
            allowed: false,
            status: { code: 403, message: REFUSAL },
          },
        })
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const name = `${ns}-webhook`;
  await admin.request(
    'create webhook',
    'POST',
    `${API}/validatingwebhookconfigurations`,
    {
      body: JSON.stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name },
        webhooks: [
          {
            name: 'refuse.dsr.dev',
            clientConfig: {
              url: `https://127.0.0.1:${port}/validate`,
              caBundle: Buffer.from(cert).toString('base64'),
            },
            rules: [
              {
                apiGroups: ['apps.dsr.dev'],
                apiVersions: ['*'],
                operations: ['CREATE'],
                resources: ['advanceddaemonsets'],
              },
            ],
            namespaceSelector: {
              matchLabels: { 'kubernetes.io/metadata.name': ns },
            },
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            timeoutSeconds: 5,
          },
        ],
      }),
    }
  );
  const refused = probeRefusal(admin, ns, 'always');
  await eventually(`webhook ${name} enforced`, refused);
  return {
    remove: async () => {
      await admin.request(
        'delete webhook',
        'DELETE',
        `${API}/validatingwebhookconfigurations/${name}`
      );
      await eventually(
        `webhook ${name} lifted`,
        async () => !(await refused())
      );
      server.close();
    },
  };
};
