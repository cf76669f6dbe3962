/**
 * How KubeHttp reaches a registered cluster without `@kubernetes/client-node`
 * (whose KubeConfig pulls its whole generated API into a bundle, 1.3 MB of
 * the reconcile function's): the record's endpoint, its CA as the only
 * trust root, TLS verification always on, and the credential as a bearer
 * token (fixed, or asked of a token source on every request) or an inline
 * client certificate. client-node's KubeConfig has the same two methods, so
 * local runs and the CLI hand KubeHttp a kubeconfig file's instead.
 */
import type https from 'node:https';
import { load as loadYaml } from 'js-yaml';
import { isObject } from '../../../cluster/record-fields.js';
import { ReconcilerError } from '../../../errors.js';
import type { ClusterRecord } from '../../../ports/index.js';
import {
  type ClusterCredential,
  ClusterCredentialError,
  type CredentialTarget,
} from '../cluster-credential.js';

/** The cluster KubeHttp talks to (client-node's `Cluster`, in part). */
export interface AccessCluster {
  name: string;
  server: string;
  caData?: string;
  skipTLSVerify?: boolean;
}

/** What KubeHttp needs of a cluster's access; client-node's KubeConfig has it. */
export interface ClusterAccess {
  getCurrentCluster(): AccessCluster | null;
  /** Sets the CA, client certificate and Authorization header of a request. */
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

/**
 * The cluster's API server URL, refusing what would weaken TLS: no
 * verification, or plain http.
 */
export const verifiedServer = (access: ClusterAccess): URL => {
  const cluster = access.getCurrentCluster();
  if (cluster === null) {
    throw new ReconcilerError('kubeconfig has no current cluster');
  }
  if (cluster.skipTLSVerify) {
    throw new ReconcilerError(
      `cluster ${cluster.name}: insecure-skip-tls-verify is refused; give its CA instead`
    );
  }
  const server = new URL(cluster.server);
  if (server.protocol !== 'https:') {
    throw new ReconcilerError(
      `cluster ${cluster.name}: the API server must be reached over https`
    );
  }
  return server;
};

export interface KubeconfigUser {
  token?: string;
  certData?: string;
  keyData?: string;
}

/** A bearer token: visible ASCII only, so it cannot split a header. */
const TOKEN = /^[\x21-\x7e]+$/;
/** The only user fields a kubeconfig from a secret may use. */
const INLINE_USER_KEYS = [
  'token',
  'client-certificate-data',
  'client-key-data',
];
/** Why other user fields are refused (nothing here quotes a value). */
const REFUSED_USER_KEYS: Record<string, string> = {
  exec: 'uses an exec credential plugin',
  'auth-provider': 'uses an auth-provider plugin',
  'token-file': 'reads its token from a file',
  'client-certificate': 'reads its client certificate from a file',
  'client-key': 'reads its client key from a file',
  username: 'uses basic authentication',
  password: 'uses basic authentication',
};

const named = (list: unknown, name: unknown): Record<string, unknown>[] =>
  (Array.isArray(list) ? list : []).filter(
    (e): e is Record<string, unknown> => isObject(e) && e.name === name
  );

/**
 * Returns the inline credentials of a kubeconfig's current user; throws a
 * ClusterCredentialError (naming fields, never quoting the text) when the
 * file is not YAML, has no usable current user, or uses exec/auth-provider
 * plugins, file references, basic auth or insecure-skip-tls-verify anywhere.
 * The text is parsed as plain YAML: client-node's `loadFromString` would read
 * `token-file` paths as it loads.
 */
export const parseKubeconfigUser = (text: string): KubeconfigUser => {
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch {
    // The parser's message quotes the text: drop it and its cause.
    throw new ClusterCredentialError('kubeconfig is not valid YAML');
  }
  if (!isObject(doc)) {
    throw new ClusterCredentialError('kubeconfig is not a YAML mapping');
  }
  const clusters = Array.isArray(doc.clusters) ? doc.clusters : [];
  clusters.forEach((c: unknown, i) => {
    if (isObject(c) && isObject(c.cluster)) {
      if (c.cluster['insecure-skip-tls-verify'] === true) {
        throw new ClusterCredentialError(
          `kubeconfig clusters[${i}] sets insecure-skip-tls-verify, which is refused`
        );
      }
    }
  });
  const users = Array.isArray(doc.users) ? doc.users : [];
  users.forEach((u: unknown, i) => {
    const fields = isObject(u) && isObject(u.user) ? u.user : {};
    for (const key of Object.keys(fields)) {
      const refused = REFUSED_USER_KEYS[key];
      if (refused) {
        throw new ClusterCredentialError(
          `kubeconfig users[${i}] ${refused}, which is refused: a stored kubeconfig must carry a token or client certificate inline`
        );
      }
    }
  });
  const contextName = doc['current-context'];
  const [context] = named(doc.contexts, contextName);
  if (typeof contextName !== 'string' || !isObject(context?.context)) {
    throw new ClusterCredentialError(
      'kubeconfig has no current-context naming one of its contexts'
    );
  }
  const [entry] = named(doc.users, context.context.user);
  if (!isObject(entry?.user)) {
    throw new ClusterCredentialError(
      "kubeconfig's current context names no user of the file"
    );
  }
  const user = entry.user;
  const unknown = Object.keys(user).filter(
    (k) => !INLINE_USER_KEYS.includes(k)
  );
  if (unknown.length > 0) {
    throw new ClusterCredentialError(
      `kubeconfig's current user uses unsupported fields (${unknown.length}); allowed: ${INLINE_USER_KEYS.join(', ')}`
    );
  }
  const str = (k: string) => (typeof user[k] === 'string' ? user[k] : '');
  const out: KubeconfigUser = {};
  if (str('token') !== '') {
    if (!TOKEN.test(str('token'))) {
      throw new ClusterCredentialError(
        "kubeconfig's current user has a token with spaces or control characters"
      );
    }
    out.token = str('token');
  }
  const certData = str('client-certificate-data');
  const keyData = str('client-key-data');
  if ((certData === '') !== (keyData === '')) {
    throw new ClusterCredentialError(
      "kubeconfig's current user needs both client-certificate-data and client-key-data"
    );
  }
  if (certData !== '') Object.assign(out, { certData, keyData });
  if (out.token === undefined && out.certData === undefined) {
    throw new ClusterCredentialError(
      "kubeconfig's current user has neither a token nor a client certificate"
    );
  }
  return out;
};

/**
 * Returns the server and CA of a kubeconfig's current cluster, or undefined
 * when the file does not name both (call after parseKubeconfigUser).
 */
export const parseKubeconfigTarget = (
  text: string
): CredentialTarget | undefined => {
  const doc = loadYaml(text) as Record<string, unknown>;
  const [context] = named(doc.contexts, doc['current-context']);
  const ctx = isObject(context?.context) ? context.context : {};
  const [entry] = named(doc.clusters, ctx.cluster);
  const cluster = isObject(entry?.cluster) ? entry.cluster : {};
  const server = cluster.server;
  const caData = cluster['certificate-authority-data'];
  return typeof server === 'string' && typeof caData === 'string'
    ? { server, caData }
    : undefined;
};

/** Returns whether `record` names the server and CA of `target`. */
export const recordMatches = (
  record: Pick<ClusterRecord, 'endpoint' | 'caData'>,
  target: CredentialTarget
): boolean => {
  const trimUrl = (url: string) => url.replace(/\/+$/, '');
  return (
    trimUrl(target.server) === trimUrl(record.endpoint) &&
    target.caData.trim() === record.caData.trim()
  );
};

/** Returns a token after checking that it cannot split a header. */
const checkedToken = (token: string, what: string): string => {
  if (!TOKEN.test(token)) {
    throw new ClusterCredentialError(
      `${what} is empty or has spaces or control characters`
    );
  }
  return token;
};

/** Returns how a request authenticates with `credential`. */
const authenticate = (
  credential: ClusterCredential
): ((opts: https.RequestOptions) => Promise<void>) => {
  const bearer = (opts: https.RequestOptions, token: string) => {
    opts.headers = { ...opts.headers, Authorization: `Bearer ${token}` };
  };
  switch (credential.type) {
    case 'token': {
      const token = checkedToken(credential.token, 'token');
      return async (opts) => bearer(opts, token);
    }
    case 'token-source':
      return async (opts) =>
        bearer(
          opts,
          checkedToken(await credential.token(), 'the token source’s token')
        );
    case 'kubeconfig': {
      const user = parseKubeconfigUser(credential.kubeconfig);
      const cert = user.certData && Buffer.from(user.certData, 'base64');
      const key = user.keyData && Buffer.from(user.keyData, 'base64');
      return async (opts) => {
        if (user.token !== undefined) bearer(opts, user.token);
        if (cert && key) Object.assign(opts, { cert, key });
      };
    }
  }
};

/**
 * Returns the access to `record` with `credential`: only the record's CA is
 * trusted, over https. Of a kubeconfig credential only the current user's
 * inline credentials are used; the record's endpoint and CA win over the
 * file's.
 *
 * @example
 * const access = clusterAccessFor(record, {
 *   type: 'token-source', token: () => tokens.token(),
 * });
 * const http = new KubeHttp({ kubeConfig: access });
 */
export const clusterAccessFor = (
  record: ClusterRecord,
  credential: ClusterCredential
): ClusterAccess => {
  if (!record.endpoint.startsWith('https://') || record.caData === '') {
    throw new ReconcilerError(
      `cluster ${record.id}: needs an https endpoint and a CA to verify it`
    );
  }
  const cluster: AccessCluster = {
    name: record.id,
    server: record.endpoint.replace(/\/$/, ''),
    caData: record.caData,
    skipTLSVerify: false,
  };
  const ca = Buffer.from(record.caData, 'base64');
  const auth = authenticate(credential);
  return {
    getCurrentCluster: () => cluster,
    async applyToHTTPSOptions(opts) {
      opts.ca = ca;
      await auth(opts);
    },
  };
};
