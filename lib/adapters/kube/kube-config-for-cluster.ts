/**
 * Builds the client-node KubeConfig a KubeHttp talks to a registered cluster
 * with: the record's endpoint and CA (TLS always verified) and a credential.
 * A token source is asked for the token on every request (KubeHttp calls
 * `applyToHTTPSOptions` per request), so rotating EKS tokens need no rebuild.
 */
import type https from 'node:https';
import { KubeConfig, loadYaml, type User } from '@kubernetes/client-node';
import { ReconcilerError } from '../../errors.js';
import type { ClusterAuth, ClusterRecord } from '../../ports/index.js';
import {
  type ClusterCredential,
  ClusterCredentialError,
} from './cluster-credential.js';

/** The credentials a kubeconfig's current user carries inline. */
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
/** client-node's `Authenticator` (not exported from its index). */
type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];
/** The user entry whose token comes from a token source. */
const TOKEN_SOURCE_USER = 'dsr-token-source';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

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
    doc = loadYaml<unknown>(text);
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

/** Sets `Authorization` from a token source, asked on every request. */
class TokenSourceAuthenticator implements Authenticator {
  constructor(private readonly token: () => Promise<string>) {}

  isAuthProvider(user: User): boolean {
    return user.name === TOKEN_SOURCE_USER;
  }

  async applyAuthentication(
    _user: User,
    opts: https.RequestOptions | { headers?: Record<string, unknown> }
  ): Promise<void> {
    const token = await this.token();
    if (!TOKEN.test(token)) {
      throw new ClusterCredentialError(
        'token source returned a token with spaces or control characters'
      );
    }
    opts.headers = { ...opts.headers, Authorization: `Bearer ${token}` };
  }
}

const userFor = (credential: ClusterCredential, kc: KubeConfig): User => {
  switch (credential.type) {
    case 'token':
      if (!TOKEN.test(credential.token)) {
        throw new ClusterCredentialError(
          'token is empty or has spaces or control characters'
        );
      }
      return { name: 'dsr-token', token: credential.token };
    case 'kubeconfig':
      return {
        name: 'dsr-kubeconfig',
        ...parseKubeconfigUser(credential.kubeconfig),
      };
    case 'token-source':
      kc.addAuthenticator(new TokenSourceAuthenticator(credential.token));
      return { name: TOKEN_SOURCE_USER };
  }
};

/**
 * Returns a KubeConfig for `record` that authenticates with `credential` and
 * trusts only the record's CA over https. Of a kubeconfig credential only
 * the current user's inline credentials are used; the record's endpoint and
 * CA win over the file's.
 *
 * @example
 * const kubeConfig = kubeConfigForCluster(record, {
 *   type: 'token-source', token: () => tokens.token(),
 * });
 * const http = new KubeHttp({ kubeConfig });
 */
export const kubeConfigForCluster = (
  record: ClusterRecord,
  credential: ClusterCredential
): KubeConfig => {
  if (!record.endpoint.startsWith('https://') || record.caData === '') {
    throw new ReconcilerError(
      `cluster ${record.id}: needs an https endpoint and a CA to verify it`
    );
  }
  const kc = new KubeConfig();
  const user = userFor(credential, kc);
  kc.loadFromOptions({
    clusters: [
      {
        name: record.id,
        server: record.endpoint.replace(/\/$/, ''),
        caData: record.caData,
        skipTLSVerify: false,
      },
    ],
    users: [user],
    contexts: [{ name: record.id, cluster: record.id, user: user.name }],
    currentContext: record.id,
  });
  return kc;
};

/**
 * Returns the KubeConfig of a `kubeconfig`-auth cluster (local runs and
 * tests: the operator's own file, so its exec plugins are allowed), set to
 * `auth.context` when given; refuses plain http and insecure-skip-tls-verify.
 */
export const kubeConfigFromFile = (
  auth: Extract<ClusterAuth, { type: 'kubeconfig' }>
): KubeConfig => {
  const kc = new KubeConfig();
  kc.loadFromFile(auth.path);
  if (auth.context !== undefined) {
    if (kc.getContextObject(auth.context) === null) {
      throw new ReconcilerError(
        `kubeconfig ${auth.path} has no context ${auth.context}`
      );
    }
    kc.setCurrentContext(auth.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server.startsWith('https://') || cluster.skipTLSVerify) {
    throw new ReconcilerError(
      `kubeconfig ${auth.path}: the current cluster must use https with TLS verification`
    );
  }
  return kc;
};

/**
 * Returns the record's API server URL: the endpoint, or for `kubeconfig`
 * auth the file's current server; '' when the file cannot be read.
 */
export const serverOfRecord = (record: ClusterRecord): string => {
  if (record.auth.type !== 'kubeconfig') return record.endpoint;
  try {
    return kubeConfigFromFile(record.auth).getCurrentCluster()?.server ?? '';
  } catch {
    return '';
  }
};
