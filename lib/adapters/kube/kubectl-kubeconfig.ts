/**
 * Loads a kubeconfig as kubectl does (client-go
 * staging/src/k8s.io/client-go/tools/clientcmd/loader.go `Load`):
 * `--kubeconfig` alone when given; else every file of `$KUBECONFIG`
 * (missing ones skipped), merged so that the first file to set a cluster,
 * user or context name, or the current context, wins; else
 * ~/.kube/config. Relative file paths resolve against the file that names
 * them (`ResolveLocalPaths`). A `--context` that names no context is
 * client-go's `context "X" does not exist`.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { load as loadYaml } from 'js-yaml';

/** How kubectl names the cluster to talk to. */
export interface KubectlTarget {
  /** --kubeconfig, else $KUBECONFIG, else ~/.kube/config. */
  kubeconfig?: string;
  /** --context, else the merged config's current context. */
  context?: string;
  /** $KUBECONFIG: files joined by the platform's path delimiter. */
  kubeconfigEnv?: string;
}

type Named = { name?: string; [k: string]: unknown };
interface RawConfig {
  clusters?: Named[];
  users?: Named[];
  contexts?: Named[];
  'current-context'?: string;
}

/** The file paths client-go resolves, by entry (GetClusterFileReferences …). */
const FILE_FIELDS = {
  clusters: ['certificate-authority'],
  users: ['client-certificate', 'client-key', 'tokenFile'],
} as const;

const absolute = (dir: string, p: unknown): unknown =>
  typeof p === 'string' && p !== '' && !path.isAbsolute(p)
    ? path.join(dir, p)
    : p;

/** Returns the entry with its file paths made absolute against `dir`. */
const resolvePaths = (
  list: 'clusters' | 'users',
  entry: Named,
  dir: string
): Named => {
  const inner = list === 'clusters' ? 'cluster' : 'user';
  const body = { ...((entry[inner] as Record<string, unknown>) ?? {}) };
  for (const f of FILE_FIELDS[list]) body[f] = absolute(dir, body[f]);
  for (const f of FILE_FIELDS[list]) if (body[f] === undefined) delete body[f];
  const exec = body.exec as { command?: string } | undefined;
  // Only a command with a path separator is a file (not a PATH lookup).
  if (exec?.command?.includes(path.sep)) {
    body.exec = { ...exec, command: absolute(dir, exec.command) };
  }
  return { ...entry, [inner]: body };
};

/** Returns the file's config, or undefined when the file does not exist. */
const readConfig = (file: string): RawConfig | undefined => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const raw = (loadYaml(text) ?? {}) as RawConfig;
  const dir = path.dirname(path.resolve(file));
  return {
    ...raw,
    clusters: (raw.clusters ?? []).map((c) => resolvePaths('clusters', c, dir)),
    users: (raw.users ?? []).map((u) => resolvePaths('users', u, dir)),
  };
};

/** Returns the files merged: the first to set a name (or current-context) wins. */
export const mergeKubeconfigs = (configs: readonly RawConfig[]): RawConfig => {
  const merged = {
    clusters: [] as Named[],
    users: [] as Named[],
    contexts: [] as Named[],
  };
  let current: string | undefined;
  for (const c of configs) {
    for (const list of ['clusters', 'users', 'contexts'] as const) {
      for (const entry of c[list] ?? []) {
        if (!merged[list].some((e) => e.name === entry.name)) {
          merged[list].push(entry);
        }
      }
    }
    current ||= c['current-context'] || undefined;
  }
  return { ...merged, ...(current ? { 'current-context': current } : {}) };
};

/** Returns the files `target` names, in kubectl's precedence. */
const filesOf = (target: KubectlTarget): string[] => {
  if (target.kubeconfig) return [target.kubeconfig];
  const listed = (target.kubeconfigEnv ?? '')
    .split(path.delimiter)
    .filter((f) => f !== '');
  return listed.length > 0
    ? [...new Set(listed)]
    : [path.join(homedir(), '.kube', 'config')];
};

/**
 * Returns the client-node KubeConfig of `target`, its current context set;
 * throws with kubectl's words when the context is missing.
 */
export const loadKubectlConfig = (target: KubectlTarget): KubeConfig => {
  const configs: RawConfig[] = [];
  for (const file of filesOf(target)) {
    const config = readConfig(file);
    if (config === undefined && target.kubeconfig) {
      throw new Error(`stat ${file}: no such file or directory`);
    }
    if (config !== undefined) configs.push(config);
  }
  const merged = mergeKubeconfigs(configs);
  const context = target.context ?? merged['current-context'];
  if (context === undefined || context === '') {
    throw new Error(
      (merged.contexts ?? []).length === 0
        ? 'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable'
        : 'invalid configuration: no context chosen: give --context NAME or set current-context'
    );
  }
  if (!(merged.contexts ?? []).some((c) => c.name === context)) {
    throw new Error(`context "${context}" does not exist`);
  }
  const kc = new KubeConfig();
  kc.loadFromString(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      ...merged,
      'current-context': context,
    })
  );
  return kc;
};
