/**
 * One end-to-end scenario's own corner of the test bed: a namespace, the
 * reconciler's least-privilege identity, KWOK nodes labelled with the
 * namespace (so no other test's DaemonSet lands on them) and a serverless
 * stack. One scenario runs at a time: a stack reconciles every DaemonSet of
 * the cluster.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import {
  createNodes,
  deleteNodes,
  type NodeSpec,
} from '#lib/local-cluster/simulated-nodes.js';
import type { FakeLogger } from '../../helpers/fakes/fake-logger.js';
import {
  createNamespace,
  deleteNamespace,
} from '../../testbed/kube-fixtures.js';
import {
  createReconcilerIdentity,
  type ReconcilerIdentity,
} from '../reconciler-identity.js';
import { adminHttp } from '../sync-loop.js';
import { ServerlessStack, type StackOptions } from './stack.js';

/** How the scenario's first nodes look (labels add to the namespace's). */
export type ScenarioNodeSpec = Omit<NodeSpec, 'prefix'>;

/** A running product under the scenario's identity: a stack or the local run. */
export interface RunningProduct {
  readonly logger: FakeLogger;
  stop(): Promise<void>;
}

/** What a scenario starts with. */
export interface ScenarioOptions {
  /** Nodes created before the stack starts. */
  nodes: number;
  nodeSpec?: ScenarioNodeSpec;
  stack?: Omit<StackOptions, 'kubeconfigPath'>;
  /**
   * Starts another product instead of the serverless stack (then `stack`
   * stays unset and `product` is that one).
   */
  product?: (kubeconfigPath: string) => Promise<RunningProduct>;
}

/** A namespace, its nodes and a running stack; `close()` removes them. */
export class E2eScenario {
  readonly admin: KubeHttp = adminHttp();
  /** The label on every node of the scenario: the DaemonSet's nodeSelector. */
  readonly selector: Record<string, string>;
  /** Nodes of the scenario that still exist, in creation order. */
  readonly nodes: string[] = [];
  stack!: ServerlessStack;
  /** The product running: the stack, or the one `ScenarioOptions.product` started. */
  product: RunningProduct | undefined;
  #identity: ReconcilerIdentity | undefined;
  #batches = 0;

  readonly ns: string;

  /** Names the scenario; nothing exists until `open()`. */
  constructor(prefix: string) {
    this.ns = `${prefix}-${Date.now().toString(36)}`;
    this.selector = { e2e: this.ns };
  }

  /** Returns a scenario that is already open. */
  static async start(prefix: string, o: ScenarioOptions): Promise<E2eScenario> {
    const s = new E2eScenario(prefix);
    await s.open(o);
    return s;
  }

  /** Creates namespace, identity and nodes, then starts the stack. */
  async open(o: ScenarioOptions): Promise<void> {
    await createNamespace(this.admin, this.ns);
    this.#identity = await createReconcilerIdentity(
      this.admin,
      this.ns,
      o.stack?.ownership
    );
    await this.addNodes(o.nodes, o.nodeSpec);
    const { kubeconfigPath } = this.#identity;
    if (o.product) {
      this.product = await o.product(kubeconfigPath);
      return;
    }
    this.stack = await ServerlessStack.start({ ...o.stack, kubeconfigPath });
    this.product = this.stack;
  }

  /** Returns the work-queue key of DaemonSet `name` in this namespace. */
  key(name = 'agent'): string {
    return `${this.stack.cluster}/${this.ns}/${name}`;
  }

  /** The reconciler identity's kubeconfig (it holds the token). */
  get kubeconfigPath(): string {
    return this.#identity?.kubeconfigPath ?? '';
  }

  /** Creates `count` more nodes carrying the scenario's label; waits for them. */
  async addNodes(
    count: number,
    spec: ScenarioNodeSpec = {}
  ): Promise<string[]> {
    const names = await createNodes(this.admin, count, {
      ...spec,
      prefix: `${this.ns}-${this.#batches++}-`,
      labels: { ...spec.labels, ...this.selector },
    });
    this.nodes.push(...names);
    return names;
  }

  /** Deletes one of the scenario's nodes. */
  async deleteNode(name: string): Promise<void> {
    await deleteNodes(this.admin, [name]);
    this.nodes.splice(this.nodes.indexOf(name), 1);
  }

  /** Stops the stack, then removes identity, nodes and namespace (also after a half-finished `open()`). */
  async close(): Promise<void> {
    try {
      await this.product?.stop();
      await this.#identity?.remove();
      await deleteNodes(this.admin, this.nodes);
      await deleteNamespace(this.admin, this.ns);
    } finally {
      this.admin.close();
    }
  }
}
