/**
 * OpenKruise's kruise-manager v1.9.1 on the test bed: the oracle the own
 * kind (apps.dsr.dev/v1beta1 AdvancedDaemonSet) is compared with. Built from
 * the Go module proxy by build-kruise.sh, run as a local process on
 * 127.0.0.1 (webhook server included), stopped by PID.
 *
 * Kruise needs, before it starts: all 18 of its CRDs (its caches watch every
 * kind), the namespace `kruise-system`, and its two webhook configurations.
 * Only the DaemonSet entries (mdaemonset.kb.io, vdaemonset.kb.io) are
 * installed, so no other kind and no pod is admitted through Kruise; its
 * webhook controller rewrites their clientConfig to
 * https://WEBHOOK_HOST:WEBHOOK_PORT and injects the CA it generates.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { KubeApiError } from '#lib/errors.js';
import {
  type Component,
  freePort,
  isRunning,
  startProcess,
  stopProcess,
  tailLog,
  waitFor,
} from '#lib/local-cluster/processes.js';

/** The Kruise release the oracle runs. */
export const KRUISE_VERSION = 'v1.9.1';
/** The namespace Kruise's webhook controller keeps its certificates in. */
export const KRUISE_NAMESPACE = 'kruise-system';
/** The Kruise DaemonSet's API version (the one its controller reconciles). */
export const KRUISE_API_VERSION = 'apps.kruise.io/v1beta1';

/** A cold build compiles ~2,000 packages one at a time. */
const BUILD_TIMEOUT_MS = 15 * 60_000;
/** Kruise starts its controllers ~3 s after its webhooks are healthy. */
const READY_TIMEOUT_MS = 90_000;
/** Above the 30/50 defaults: one Kruise serves the whole test file. */
const REST_QPS = 100;
const REST_BURST = 200;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const MUTATING =
  '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VALIDATING =
  '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MUTATING_NAME = 'kruise-mutating-webhook-configuration';
const VALIDATING_NAME = 'kruise-validating-webhook-configuration';

/** Returns the collection path of Kruise DaemonSets in `ns`. */
export const kruiseDaemonSetsPath = (ns: string): string =>
  `/apis/apps.kruise.io/v1beta1/namespaces/${ns}/daemonsets`;

/**
 * Returns the directory holding `kruise-manager` and `crds/`, building them
 * (minutes when cold) unless cached.
 */
export const ensureKruiseManager = (): string => {
  const script = new URL('./build-kruise.sh', import.meta.url).pathname;
  const out = execFileSync('bash', [script], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: BUILD_TIMEOUT_MS,
  });
  const dir = out.trim().split('\n').at(-1);
  if (!dir) throw new Error('build-kruise.sh printed no directory');
  return dir;
};

/** One DaemonSet webhook entry, pointed at the Service Kruise expects. */
const webhook = (kind: 'mutate' | 'validate', name: string) => ({
  admissionReviewVersions: ['v1', 'v1beta1'],
  clientConfig: {
    service: {
      name: 'kruise-webhook-service',
      namespace: KRUISE_NAMESPACE,
      path: `/${kind}-apps-kruise-io-daemonset`,
    },
  },
  failurePolicy: 'Fail',
  name,
  rules: [
    {
      apiGroups: ['apps.kruise.io'],
      apiVersions: ['v1alpha1', 'v1beta1'],
      operations: ['CREATE', 'UPDATE'],
      resources: ['daemonsets'],
    },
  ],
  sideEffects: 'None',
});

/** POSTs `body` unless an object of that name exists. */
const createIfAbsent = async (
  admin: KubeHttp,
  what: string,
  collection: string,
  body: object
): Promise<void> => {
  await admin
    .request(what, 'POST', collection, { body: JSON.stringify(body) })
    .catch((e: unknown) => {
      if (!(e instanceof KubeApiError && e.statusCode === 409)) throw e;
    });
};

/** Deletes an object; NotFound is fine. */
const deleteIfPresent = async (
  admin: KubeHttp,
  what: string,
  objectPath: string
): Promise<void> => {
  await admin.request(what, 'DELETE', objectPath).catch((e: unknown) => {
    if (!(e instanceof KubeApiError && e.statusCode === 404)) throw e;
  });
};

/** Returns Kruise's CRDs as raw JSON objects. */
const readCrds = (crdDir: string): { metadata: { name: string } }[] =>
  readdirSync(crdDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => loadAll(readFileSync(path.join(crdDir, f), 'utf8')))
    .filter((d): d is { metadata: { name: string } } => d !== null);

/**
 * Installs Kruise's CRDs, its namespace and its DaemonSet webhook
 * configurations (each unless present); resolves once every CRD is served.
 */
export const installKruisePrerequisites = async (
  admin: KubeHttp,
  crdDir: string
): Promise<string[]> => {
  const crds = readCrds(crdDir);
  for (const crd of crds)
    await createIfAbsent(admin, `create crd ${crd.metadata.name}`, CRDS, crd);
  await createIfAbsent(admin, 'create namespace', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: KRUISE_NAMESPACE },
  });
  await createIfAbsent(admin, 'create mutating webhooks', MUTATING, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: MUTATING_NAME },
    webhooks: [webhook('mutate', 'mdaemonset.kb.io')],
  });
  await createIfAbsent(admin, 'create validating webhooks', VALIDATING, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: VALIDATING_NAME },
    webhooks: [webhook('validate', 'vdaemonset.kb.io')],
  });
  const names = crds.map((c) => c.metadata.name);
  await waitFor(
    `${names.length} Kruise CRDs established`,
    async () => {
      for (const name of names) {
        const crd = await admin.request<{
          status?: { conditions?: { type: string; status: string }[] };
        }>(`get crd ${name}`, 'GET', `${CRDS}/${name}`);
        const established = (crd.status?.conditions ?? []).some(
          (c) => c.type === 'Established' && c.status === 'True'
        );
        if (!established) return undefined;
      }
      return true;
    },
    60_000,
    250
  );
  return names;
};

/** A running kruise-manager and what it installed. */
export interface KruiseManager {
  component: Component;
  crdNames: string[];
}

/** A Kruise DaemonSet a dry run sends through both webhooks. */
const probeDaemonSet = {
  apiVersion: KRUISE_API_VERSION,
  kind: 'DaemonSet',
  metadata: { name: 'webhook-probe' },
  spec: {
    selector: { matchLabels: { app: 'webhook-probe' } },
    template: {
      metadata: { labels: { app: 'webhook-probe' } },
      spec: { containers: [{ name: 'c', image: 'probe' }] },
    },
  },
};

/**
 * Starts kruise-manager (only its own controllers, no leader election, no
 * kruise-daemon) against `kubeconfigPath`; resolves once its webhooks admit
 * a DaemonSet and its probe endpoint reports ready.
 */
export const startKruiseManager = async ({
  admin,
  kubeconfigPath,
  logDir,
}: {
  admin: KubeHttp;
  kubeconfigPath: string;
  logDir: string;
}): Promise<KruiseManager> => {
  const dir = ensureKruiseManager();
  const crdNames = await installKruisePrerequisites(
    admin,
    path.join(dir, 'crds')
  );
  const certDir = path.join(logDir, 'kruise-webhook-certs');
  mkdirSync(certDir, { recursive: true });
  const [webhookPort, metricsPort, probePort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  // `env` execs the binary, so the PID stopProcess signals is Kruise's.
  const component = startProcess(
    'kruise-manager',
    'env',
    [
      `KUBECONFIG=${kubeconfigPath}`,
      `POD_NAMESPACE=${KRUISE_NAMESPACE}`,
      'WEBHOOK_HOST=127.0.0.1',
      'WEBHOOK_BIND_HOST=127.0.0.1',
      `WEBHOOK_PORT=${webhookPort}`,
      `WEBHOOK_CERT_DIR=${certDir}`,
      path.join(dir, 'kruise-manager'),
      '--enable-leader-election=false',
      `--metrics-addr=127.0.0.1:${metricsPort}`,
      `--health-probe-addr=127.0.0.1:${probePort}`,
      '--enable-pprof=false',
      // kruise-daemon (a node agent: image pulls, container restarts) does
      // not run on KWOK nodes.
      '--feature-gates=KruiseDaemon=false',
      `--rest-config-qps=${REST_QPS}`,
      `--rest-config-burst=${REST_BURST}`,
      '--v=2',
    ],
    logDir
  );
  try {
    await waitFor(
      'kruise-manager webhooks and readiness',
      async () => {
        if (!isRunning(component)) throw new Error('kruise-manager exited');
        const ready = await fetch(`http://127.0.0.1:${probePort}/readyz`)
          .then((r) => r.ok)
          .catch(() => false);
        if (!ready) return undefined;
        await admin.request(
          'dry-run create kruise ds',
          'POST',
          kruiseDaemonSetsPath(KRUISE_NAMESPACE),
          { query: { dryRun: 'All' }, body: JSON.stringify(probeDaemonSet) }
        );
        return true;
      },
      READY_TIMEOUT_MS,
      500
    );
  } catch (e) {
    await stopProcess(component);
    throw new Error(`kruise-manager did not start:\n${tailLog(component)}`, {
      cause: e,
    });
  }
  return { component, crdNames };
};

/**
 * Stops kruise-manager by PID, then removes its webhook configurations (a
 * dead webhook with failurePolicy Fail would block every later write of a
 * Kruise DaemonSet), its namespace and its CRDs.
 */
export const stopKruiseManager = async (
  admin: KubeHttp,
  kruise: KruiseManager | undefined
): Promise<void> => {
  if (kruise) await stopProcess(kruise.component);
  await deleteIfPresent(
    admin,
    'delete mutating webhooks',
    `${MUTATING}/${MUTATING_NAME}`
  );
  await deleteIfPresent(
    admin,
    'delete validating webhooks',
    `${VALIDATING}/${VALIDATING_NAME}`
  );
  await deleteIfPresent(
    admin,
    'delete kruise namespace',
    `/api/v1/namespaces/${KRUISE_NAMESPACE}`
  );
  for (const name of kruise?.crdNames ?? [])
    await deleteIfPresent(admin, `delete crd ${name}`, `${CRDS}/${name}`);
};
