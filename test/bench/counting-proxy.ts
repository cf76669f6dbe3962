/**
 * An HTTP pass-through in front of an AWS emulator that records every call
 * the product's SDK clients make: the operation (from the `X-Amz-Target`
 * header of the AWS JSON protocol that DynamoDB and SQS speak), the parsed
 * request and the answer's status and error type. Counting on the wire
 * needs no change to the wiring (lib/wiring/aws.ts): the product's
 * clients get the proxy's endpoint, the harness's own clients (queue and
 * table setup, the event-source-mapping pollers) keep the emulator's, so
 * only the product's operations are counted, retries included.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded call. */
export interface ProxiedCall {
  /** The operation, e.g. `UpdateItem` or `SendMessageBatch`. */
  action: string;
  /** The request body as JSON (undefined when it is not JSON). */
  input: unknown;
  status: number;
  /** The error's type when the answer is an error, e.g. `ConditionalCheckFailedException`. */
  errorType?: string;
  /** Bytes of the request body and of the answer's body (for unit sizes). */
  requestBytes: number;
  responseBytes: number;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Returns the operation named by a request (JSON or query protocol). */
const actionOf = (req: http.IncomingMessage, body: string): string => {
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string') return target.split('.').at(-1) ?? target;
  return new URLSearchParams(body).get('Action') ?? 'unknown';
};

/** Returns the short error type of an AWS JSON error answer. */
const errorTypeOf = (body: string): string | undefined => {
  const type = (parseJson(body) as { __type?: unknown } | undefined)?.__type;
  return typeof type === 'string' ? type.split('#').at(-1) : undefined;
};

/**
 * What the proxy does to one call instead of passing it: answer with an
 * error of its own (throttling, 5xx), or pass it and lose the answer after
 * the emulator committed it (the connection drops).
 */
export type Interference =
  | { kind: 'answer'; status: number; errorType: string }
  | { kind: 'lose-response' };

/** Chooses an interference for a call, or none (the fault campaign's). */
export type Interferer = (call: {
  action: string;
  input: unknown;
}) => Interference | undefined;

/** Returns an AWS JSON-protocol error body. */
const errorBody = (errorType: string): string =>
  JSON.stringify({ __type: errorType, message: `injected ${errorType}` });

/** A recording pass-through to one emulator endpoint. */
export class CountingProxy {
  readonly calls: ProxiedCall[] = [];
  readonly #server: http.Server;
  readonly #agent: http.Agent;

  private constructor(
    server: http.Server,
    agent: http.Agent,
    readonly endpoint: string
  ) {
    this.#server = server;
    this.#agent = agent;
  }

  /** Chooses what to do to each call; nothing until set. */
  interfere: Interferer = () => undefined;

  /** Starts a proxy on 127.0.0.1 that forwards to `target`. */
  static async start(target: string): Promise<CountingProxy> {
    const upstream = new URL(target);
    const agent = new http.Agent({ keepAlive: true });
    let proxy: CountingProxy | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        const headers = { ...req.headers, host: upstream.host };
        const action = actionOf(req, text);
        const input = parseJson(text);
        const interference = proxy?.interfere({ action, input });
        if (interference?.kind === 'answer') {
          const { status, errorType } = interference;
          const answer = errorBody(errorType);
          proxy?.calls.push({
            action,
            input,
            status,
            errorType,
            requestBytes: body.length,
            responseBytes: answer.length,
          });
          res.writeHead(status, {
            'content-type': 'application/x-amz-json-1.0',
          });
          res.end(answer);
          return;
        }
        const out = http.request(
          new URL(req.url ?? '/', upstream),
          { method: req.method, headers, agent },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', () => {
              const payload = Buffer.concat(parts);
              const status = answer.statusCode ?? 0;
              const errorType =
                status >= 400 ? errorTypeOf(payload.toString('utf8')) : '';
              proxy?.calls.push({
                action,
                input,
                status,
                ...(errorType ? { errorType } : {}),
                requestBytes: body.length,
                responseBytes: payload.length,
              });
              if (interference?.kind === 'lose-response') {
                res.destroy();
                return;
              }
              const { 'transfer-encoding': _, ...rest } = answer.headers;
              res.writeHead(status, {
                ...rest,
                'content-length': payload.length,
              });
              res.end(payload);
            });
          }
        );
        out.on('error', (e) => res.destroy(e));
        out.end(body);
      });
    });
    await new Promise<void>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve())
    );
    const { port } = server.address() as AddressInfo;
    proxy = new CountingProxy(server, agent, `http://127.0.0.1:${port}`);
    return proxy;
  }

  /** Returns how many calls have been recorded so far (a mark to diff from). */
  mark(): number {
    return this.calls.length;
  }

  /** Returns the calls recorded since `mark`. */
  since(mark: number): ProxiedCall[] {
    return this.calls.slice(mark);
  }

  /** Stops listening and closes connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#agent.destroy();
  }
}
