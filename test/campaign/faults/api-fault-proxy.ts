/**
 * A TLS proxy in front of kube-apiserver that injects the faults a remote
 * cluster shows: APF's 429 with Retry-After, 5xx, latency, connection
 * resets, a watch cut mid-stream, a watch answered with 410 Expired (what a
 * compacted etcd gives a watch from an old resourceVersion), and a cluster
 * that cannot be reached at all. The product reaches the cluster only
 * through it (its kubeconfig names the proxy and the proxy's CA); the
 * workload and the invariant checker go straight to the API server.
 */
import { once } from 'node:events';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import {
  statusMessage,
  watchFrame,
  wrapped,
} from '../../helpers/proto-writer.js';
import { selfSignedKeyPair } from '../../helpers/self-signed-pem.js';

/** What the proxy does to one request. */
export type ApiFaultAction =
  | { kind: 'api-429'; retryAfterSeconds: number }
  | { kind: 'api-5xx'; status: 500 | 503 }
  | { kind: 'api-latency'; ms: number }
  | { kind: 'api-reset' }
  | { kind: 'watch-cut'; afterMs: number }
  | { kind: 'watch-410' }
  | { kind: 'cluster-unreachable' };

/** One request as the decider sees it. */
export interface ApiRequestInfo {
  method: string;
  path: string;
  watch: boolean;
}

/** Chooses a fault for a request, or none. */
export type ApiFaultDecider = (
  request: ApiRequestInfo
) => ApiFaultAction | undefined;

/** A Kubernetes Status body, as the API server writes its errors. */
const statusBody = (code: number, reason: string, message: string): string =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  });

const isWatch = (url: URL): boolean => url.searchParams.get('watch') === 'true';

const PROTOBUF_WATCH = 'application/vnd.kubernetes.protobuf;stream=watch';

/**
 * A watch's 410 as the API server streams it: an ERROR event, in protobuf
 * when the watch asked for it (the reconcile containers' pod watches do).
 */
const answerWatch410 = (
  req: http.IncomingMessage,
  res: http.ServerResponse
): void => {
  const message = 'too old resource version';
  if (req.headers.accept?.includes(PROTOBUF_WATCH)) {
    res.writeHead(200, { 'Content-Type': PROTOBUF_WATCH });
    const status = statusMessage(410, 'Expired', message);
    res.end(watchFrame('ERROR', wrapped('Status', status)));
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const status = JSON.parse(statusBody(410, 'Expired', message));
  res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
};

/** A running fault proxy. */
export class ApiFaultProxy {
  /** Requests seen, and faults injected by kind. */
  readonly counts = { requests: 0, faults: {} as Record<string, number> };
  /** Chooses the fault of each request; none until set. */
  decide: ApiFaultDecider = () => undefined;
  readonly #sockets = new Set<Socket>();

  private constructor(
    readonly server: https.Server,
    readonly url: string,
    /** The proxy's CA (PEM) for the product's kubeconfig. */
    readonly caPem: string
  ) {}

  /** Starts a proxy on 127.0.0.1 in front of `target` (verified with `targetCa`). */
  static async start(target: string, targetCa: string): Promise<ApiFaultProxy> {
    const { cert, key } = selfSignedKeyPair('campaign-proxy', '127.0.0.1');
    const upstream = new URL(target);
    const agent = new https.Agent({ keepAlive: true, ca: targetCa });
    const server = https.createServer({ cert, key });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const proxy = new ApiFaultProxy(server, `https://127.0.0.1:${port}`, cert);
    server.on('request', (req, res) =>
      proxy.#handle(req, res, upstream, agent)
    );
    server.on('secureConnection', (socket: Socket) => {
      proxy.#sockets.add(socket);
      socket.once('close', () => proxy.#sockets.delete(socket));
    });
    return proxy;
  }

  #count(kind: string): void {
    this.counts.faults[kind] = (this.counts.faults[kind] ?? 0) + 1;
  }

  #handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    upstream: URL,
    agent: https.Agent
  ): void {
    this.counts.requests++;
    const url = new URL(req.url ?? '/', upstream);
    const fault = this.decide({
      method: req.method ?? 'GET',
      path: url.pathname,
      watch: isWatch(url),
    });
    if (fault) this.#count(fault.kind);
    switch (fault?.kind) {
      case 'cluster-unreachable':
      case 'api-reset':
        req.socket.destroy();
        return;
      case 'api-429':
        res.writeHead(429, {
          'Content-Type': 'application/json',
          'Retry-After': String(fault.retryAfterSeconds),
        });
        res.end(statusBody(429, 'TooManyRequests', 'too many requests'));
        return;
      case 'api-5xx':
        res.writeHead(fault.status, { 'Content-Type': 'application/json' });
        res.end(
          statusBody(
            fault.status,
            fault.status === 503 ? 'ServiceUnavailable' : 'InternalError',
            'injected server error'
          )
        );
        return;
      case 'watch-410':
        answerWatch410(req, res);
        return;
      case 'api-latency':
        setTimeout(() => this.#forward(req, res, url, agent), fault.ms);
        return;
      case 'watch-cut':
        this.#forward(req, res, url, agent, fault.afterMs);
        return;
      default:
        this.#forward(req, res, url, agent);
    }
  }

  #forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    agent: https.Agent,
    cutAfterMs?: number
  ): void {
    const out = https.request(
      url,
      {
        method: req.method,
        headers: { ...req.headers, host: url.host },
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        if (cutAfterMs !== undefined) {
          const timer = setTimeout(() => {
            answer.destroy();
            res.destroy();
          }, cutAfterMs);
          answer.once('close', () => clearTimeout(timer));
        }
      }
    );
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
    req.pipe(out);
  }

  /** Returns a kubeconfig that reaches the cluster through the proxy with `token`. */
  kubeConfigFor(token: string): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name: 'proxy',
          server: this.url,
          caData: Buffer.from(this.caPem).toString('base64'),
        },
      ],
      users: [{ name: 'user', token }],
      contexts: [{ name: 'proxy', cluster: 'proxy', user: 'user' }],
      currentContext: 'proxy',
    });
    return kc;
  }

  /** Cuts every open connection (watches included). */
  cutAll(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
