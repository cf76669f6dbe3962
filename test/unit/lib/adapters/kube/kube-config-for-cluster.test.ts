/**
 * The KubeConfig built for a registered cluster drives the project's own
 * KubeHttp against a local HTTPS server (127.0.0.1, certificates made by
 * openssl for this run): the server sees the current credential on every
 * request, and a server the record's CA did not sign is refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EksTokenCache } from '#lib/adapters/aws/eks-token.js';
import { clusterAccessFor } from '#lib/adapters/kube/client/cluster-access.js';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import {
  type ClusterCredential,
  ClusterCredentialError,
} from '#lib/adapters/kube/cluster-credential.js';
import { kubeConfigFromFile } from '#lib/adapters/kube/kube-config-for-cluster.js';
import { ApiErrorReason, KubeApiError, ReconcilerError } from '#lib/errors.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

const MINUTE = 60_000;

/** Key pairs and certificates made with openssl in a temporary directory. */
class Pki {
  constructor(readonly dir: string) {}

  #openssl(args: string[]): void {
    execFileSync('openssl', args, { cwd: this.dir, stdio: 'ignore' });
  }

  #key(name: string): void {
    this.#openssl([
      'genpkey',
      '-algorithm',
      'EC',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-out',
      `${name}.key`,
    ]);
  }

  /** Makes a self-signed CA `<name>.crt`/`<name>.key`. */
  ca(name: string): void {
    this.#key(name);
    this.#openssl([
      'req',
      '-x509',
      '-new',
      '-key',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
    ]);
  }

  /** Makes `<name>.crt` signed by CA `ca` with the given extensions. */
  leaf(name: string, ca: string, extensions: string): void {
    this.#key(name);
    this.#openssl([
      'req',
      '-new',
      '-key',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${name}`,
    ]);
    writeFileSync(path.join(this.dir, `${name}.ext`), `${extensions}\n`);
    this.#openssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    ]);
  }

  read(file: string): string {
    return readFileSync(path.join(this.dir, file), 'utf8');
  }

  base64(file: string): string {
    return Buffer.from(this.read(file)).toString('base64');
  }
}

/** What the local API server saw of one request. */
interface Seen {
  headers: IncomingHttpHeaders;
  clientCn: string | undefined;
}

/** Starts an HTTPS server on 127.0.0.1 that answers every GET with JSON. */
const startServer = async (
  pki: Pki,
  cert: string,
  seen: Seen[]
): Promise<{ server: https.Server; url: string }> => {
  const server = https.createServer(
    {
      key: pki.read(`${cert}.key`),
      cert: pki.read(`${cert}.crt`),
      ca: pki.read('ca.crt'),
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({
        headers: req.headers,
        clientCn: peer?.subject?.CN as string | undefined,
      });
      res.setHeader('Content-Type', 'application/json');
      res.end('{"kind":"NamespaceList","items":[]}');
    }
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `https://127.0.0.1:${port}` };
};

describe('clusterAccessFor', () => {
  let pki: Pki;
  let trusted: { server: https.Server; url: string };
  let rogue: { server: https.Server; url: string };
  const seen: Seen[] = [];
  const record = (over: Partial<ClusterRecord> = {}): ClusterRecord => ({
    id: 'local',
    endpoint: trusted.url,
    caData: pki.base64('ca.crt'),
    auth: { type: 'eks', clusterName: 'local', region: 'us-east-1' },
    ownership: 'apps/v1',
    bridgeMode: 'watch',
    ...over,
  });
  /** Sends one GET through KubeHttp and returns what the server saw. */
  const get = async (http: KubeHttp): Promise<Seen> => {
    const before = seen.length;
    await http.request('list namespaces', 'GET', '/api/v1/namespaces');
    expect(seen).toHaveLength(before + 1);
    return seen[before] as Seen;
  };
  const httpFor = (r: ClusterRecord, credential: ClusterCredential) =>
    new KubeHttp({ kubeConfig: clusterAccessFor(r, credential) });

  beforeAll(async () => {
    pki = new Pki(mkdtempSync(path.join(os.tmpdir(), 'dsr-pki-')));
    pki.ca('ca');
    pki.ca('rogue-ca');
    pki.leaf('server', 'ca', 'subjectAltName=IP:127.0.0.1');
    pki.leaf('rogue-server', 'rogue-ca', 'subjectAltName=IP:127.0.0.1');
    pki.leaf('client', 'ca', 'extendedKeyUsage=clientAuth');
    trusted = await startServer(pki, 'server', seen);
    rogue = await startServer(pki, 'rogue-server', seen);
  });
  afterAll(async () => {
    trusted?.server.closeAllConnections();
    rogue?.server.closeAllConnections();
    await Promise.all(
      [trusted, rogue].map(
        (s) => new Promise((resolve) => s?.server.close(resolve))
      )
    );
    if (pki) rmSync(pki.dir, { recursive: true, force: true });
  });

  it('sends a fixed token over TLS verified with the record’s CA', async () => {
    // Prepare
    const http = httpFor(record(), { type: 'token', token: 'sa-token' });
    // Act
    const got = await get(http);
    http.close();
    // Assess
    expect(got.headers.authorization).toBe('Bearer sa-token');
  });

  it('sends the current EKS token on every request, also after a re-mint', async () => {
    // Prepare
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const tokens = new EksTokenCache({
      clusterName: 'local',
      region: 'us-east-1',
      credentials: async () => ({
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'secret',
      }),
      clock,
    });
    const http = httpFor(record(), {
      type: 'token-source',
      token: () => tokens.token(),
    });
    // Act
    const first = await get(http);
    clock.step(13 * MINUTE);
    const second = await get(http);
    clock.step(MINUTE);
    const third = await get(http);
    const current = await tokens.token();
    http.close();
    // Assess
    expect(first.headers.authorization).toMatch(/^Bearer k8s-aws-v1\./);
    expect(second.headers.authorization).toBe(first.headers.authorization);
    expect(third.headers.authorization).not.toBe(first.headers.authorization);
    expect(third.headers.authorization).toBe(`Bearer ${current}`);
  });

  it('uses only the user of a kubeconfig credential: the record’s endpoint and CA win', async () => {
    // Prepare: the file points elsewhere and trusts another CA.
    const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: elsewhere
  cluster:
    server: https://192.0.2.1
    certificate-authority-data: ${pki.base64('rogue-ca.crt')}
users:
- name: admin
  user:
    client-certificate-data: ${pki.base64('client.crt')}
    client-key-data: ${pki.base64('client.key')}
contexts:
- name: ctx
  context: {cluster: elsewhere, user: admin}
current-context: ctx
`;
    const http = httpFor(record(), { type: 'kubeconfig', kubeconfig });
    // Act
    const got = await get(http);
    http.close();
    // Assess
    expect(got.clientCn).toBe('client');
    expect(got.headers.authorization).toBeUndefined();
  });

  it('refuses a server whose certificate the record’s CA did not sign', async () => {
    // Prepare
    const before = seen.length;
    const http = httpFor(record({ endpoint: rogue.url }), {
      type: 'token',
      token: 'sa-token',
    });
    // Act
    const error = await http
      .request('list namespaces', 'GET', '/api/v1/namespaces')
      .catch((e: unknown) => e);
    http.close();
    // Assess
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).reason).toBe(ApiErrorReason.Unreachable);
    expect(seen).toHaveLength(before);
  });

  it('never turns off TLS verification', () => {
    // Act
    const kc = clusterAccessFor(record(), { type: 'token', token: 't' });
    // Assess
    expect(kc.getCurrentCluster()?.skipTLSVerify).toBe(false);
    expect(kc.getCurrentCluster()?.caData).toBe(pki.base64('ca.crt'));
  });

  it.each([
    { name: 'an http endpoint', over: { endpoint: 'http://127.0.0.1:1' } },
    { name: 'no CA', over: { caData: '' } },
  ])('refuses a record with $name', ({ over }) => {
    // Act
    const build = () =>
      clusterAccessFor(record(over), { type: 'token', token: 't' });
    // Assess
    expect(build).toThrow(ReconcilerError);
  });

  it('refuses a token that could split the Authorization header', async () => {
    // Prepare
    const fixed = () =>
      clusterAccessFor(record(), { type: 'token', token: 'a\r\nb' });
    const http = httpFor(record(), {
      type: 'token-source',
      token: async () => 'a b',
    });
    // Act
    const fromSource = await http
      .request('list namespaces', 'GET', '/api/v1/namespaces')
      .catch((e: unknown) => e);
    http.close();
    // Assess
    expect(fixed).toThrow(ClusterCredentialError);
    expect(fromSource).toBeInstanceOf(ClusterCredentialError);
  });
});

describe('kubeConfigFromFile', () => {
  let dir: string;
  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const kubeconfig = (server: string, extra = '') => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${server}
${extra}
users:
- name: u
  user: {token: t}
contexts:
- name: a
  context: {cluster: c, user: u}
- name: b
  context: {cluster: c, user: u}
current-context: a
`;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-kc-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the file and selects the given context', () => {
    // Prepare
    const file = write('ok', kubeconfig('https://127.0.0.1:6443'));
    // Act
    const kc = kubeConfigFromFile({
      type: 'kubeconfig',
      path: file,
      context: 'b',
    });
    // Assess
    expect(kc.getCurrentContext()).toBe('b');
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
  });

  it.each([
    { name: 'plain http', text: kubeconfig('http://127.0.0.1:8080') },
    {
      name: 'insecure-skip-tls-verify',
      text: kubeconfig(
        'https://127.0.0.1:6443',
        '    insecure-skip-tls-verify: true'
      ),
    },
  ])('refuses a file that uses $name', ({ text }) => {
    // Prepare
    const file = write('bad', text);
    // Act
    const load = () => kubeConfigFromFile({ type: 'kubeconfig', path: file });
    // Assess
    expect(load).toThrow(/must use https with TLS verification/);
  });

  it('refuses an unknown context', () => {
    // Prepare
    const file = write('ctx', kubeconfig('https://127.0.0.1:6443'));
    // Act
    const load = () =>
      kubeConfigFromFile({ type: 'kubeconfig', path: file, context: 'z' });
    // Assess
    expect(load).toThrow(/has no context z/);
  });
});
