/**
 * One emulated Lambda container's view of the network: every outgoing HTTP
 * request made in its async context (AWS SDK and Kubernetes alike) belongs
 * to it. Node publishes each request on the `http.client.request.created`
 * diagnostics channel in the async context of the code that made it, so a
 * container can die between any two of its I/O calls — a dead one's
 * requests are destroyed before a byte is sent, its open ones at the kill —
 * and its requests' sockets tell how many bytes it read from each
 * destination.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';

/** Where an invocation dies: at its n-th request, before sending it or after its answer. */
export interface KillPoint {
  atRequest: number;
  when: 'before-send' | 'after-answer';
}

/** Requests sent, and bytes read for them. */
export interface RequestCount {
  requests: number;
  bytesRead: number;
}

/** Requests sent to one destination, and bytes read from it. */
export interface Traffic extends RequestCount {
  /** The same by kind of request: `VERB resource`, `watch` added for watches. */
  byKind: Record<string, RequestCount>;
}

/** Adds `requests` and `bytesRead` of `kind` to `total`. */
export const addTraffic = (
  total: Traffic,
  kind: string,
  requests: number,
  bytesRead: number
): void => {
  total.byKind[kind] ??= { requests: 0, bytesRead: 0 };
  const k = total.byKind[kind];
  k.requests += requests;
  k.bytesRead += bytesRead;
  total.requests += requests;
  total.bytesRead += bytesRead;
};

/** A Kubernetes API path's resource (`pods`, `daemonsets`, …), if it is one. */
const API_RESOURCE =
  /^\/apis?\/(?:[^/]+\/)?v[^/]+\/(?:namespaces\/[^/]+\/)?([^/?]+)/;

/** Returns the kind a request counts under, e.g. `GET pods watch`. */
export const requestKind = (method: string, path: string): string => {
  const resource = API_RESOURCE.exec(path)?.[1];
  const watch = /[?&]watch=(true|1)/.test(path) ? ' watch' : '';
  return resource === undefined ? method : `${method} ${resource}${watch}`;
};

/** One container's scope: its open requests, its sockets and how it dies. */
export class ContainerScope {
  dead = false;
  requests = 0;
  /** Called when the armed kill point fires. */
  readonly #fired: () => void;
  readonly #open = new Set<ClientRequest>();
  /** Requests made, and bytes read by finished ones, by `host:port` and kind. */
  readonly #traffic = new Map<string, Map<string, RequestCount>>();
  /** Requests still reading: their socket and its count when they got it. */
  readonly #reading = new Set<{
    destination: string;
    kind: string;
    socket: Socket;
    from: number;
  }>();
  #killPoint: KillPoint | undefined;
  #onDeath: (() => void)[] = [];

  constructor(fired: () => void = () => undefined) {
    this.#fired = fired;
  }

  /** Arms the scope to die at the invocation's n-th request from now. */
  arm(point: KillPoint | undefined): void {
    this.#killPoint = point && {
      ...point,
      atRequest: this.requests + point.atRequest,
    };
  }

  onDeath(f: () => void): void {
    this.#onDeath.push(f);
  }

  /**
   * The requests this container sent to `destination` (`host:port`) and
   * the bytes it read from there, headers included, after TLS: a socket
   * keeps its count after it is closed, so a dead container's reads count.
   */
  trafficTo(destination: string): Traffic {
    const total: Traffic = { requests: 0, bytesRead: 0, byKind: {} };
    for (const [kind, t] of this.#traffic.get(destination) ?? []) {
      addTraffic(total, kind, t.requests, t.bytesRead);
    }
    for (const r of this.#reading) {
      if (r.destination === destination) {
        addTraffic(total, r.kind, 0, r.socket.bytesRead - r.from);
      }
    }
    return total;
  }

  #trafficOf(destination: string, kind: string) {
    let kinds = this.#traffic.get(destination);
    if (kinds === undefined) {
      kinds = new Map();
      this.#traffic.set(destination, kinds);
    }
    let traffic = kinds.get(kind);
    if (traffic === undefined) {
      traffic = { requests: 0, bytesRead: 0 };
      kinds.set(kind, traffic);
    }
    return traffic;
  }

  /**
   * Counts what `request` reads: a keep-alive socket serves one request
   * at a time (HTTP/1.1, no pipelining), so its count from when the
   * request gets it until the request closes is that request's.
   */
  #count(request: ClientRequest): void {
    const destination = String(request.getHeader('host') ?? request.host);
    const kind = requestKind(request.method, request.path);
    const traffic = this.#trafficOf(destination, kind);
    traffic.requests++;
    request.once('socket', (socket) => {
      const read = { destination, kind, socket, from: socket.bytesRead };
      this.#reading.add(read);
      request.once('close', () => {
        this.#reading.delete(read);
        traffic.bytesRead += socket.bytesRead - read.from;
      });
    });
  }

  /** Sees one request of this container start. */
  started(request: ClientRequest): void {
    if (this.dead) {
      request.destroy(new Error('the container is dead'));
      return;
    }
    this.requests++;
    this.#open.add(request);
    request.once('close', () => this.#open.delete(request));
    this.#count(request);
    const point = this.#killPoint;
    if (point?.atRequest !== this.requests) return;
    const die = () => {
      if (this.dead) return;
      this.#fired();
      this.kill();
    };
    if (point.when === 'before-send') die();
    else request.once('response', die);
  }

  kill(): void {
    if (this.dead) return;
    this.dead = true;
    for (const request of this.#open) {
      request.destroy(new Error('the container died'));
    }
    for (const f of this.#onDeath) f();
  }
}

const scopes = new AsyncLocalStorage<ContainerScope>();
let subscribed = false;

/** Runs `f` inside `scope`: every request it makes belongs to the scope. */
export const runInScope = <T>(scope: ContainerScope, f: () => T): T => {
  if (!subscribed) {
    subscribed = true;
    subscribe('http.client.request.created', (message) => {
      const { request } = message as { request: ClientRequest };
      scopes.getStore()?.started(request);
    });
  }
  return scopes.run(scope, f);
};
