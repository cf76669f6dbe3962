/**
 * A run's random workload, drawn from its seed: DaemonSets created with a
 * random update strategy, template changes, strategy switches, `kubectl
 * rollout undo` and `restart`, nodes added, deleted, relabelled and
 * tainted, daemon pods failed or deleted — and foreign pods that no
 * DaemonSet may touch. The plan (what, when) is data; the targets are drawn
 * when an action runs, from what the cluster then holds.
 */
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type { ContentType } from '#lib/adapters/kube/client/kube-http-types.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import { ROLLOUT_ANNOTATION } from '#lib/reconcile/on-delete/rollout-annotation.js';
import {
  deletePod,
  failPod,
  patchNode,
} from '../integration/serverless/cluster-state.js';
import { type KindAccess, kindAccess } from './campaign-kinds.js';
import { createForeignPods } from './foreign-pods.js';
import type { CampaignKind } from './run-kind.js';
import type { SeededRandom } from './seeded-random.js';
import {
  type ActionKind,
  CAMPAIGN_TAINT,
  drawAdvancedStrategy,
  drawOnDeleteControls,
  drawStrategy,
  type OnDeleteControls,
  PROMOTE_PATCH,
  promotedOnDeleteControls,
  type WorkloadObserver,
  withoutNulls,
} from './workload-plan.js';

export {
  ACTIONS,
  type ActionKind,
  CAMPAIGN_TAINT,
  drawWorkload,
  type PlannedAction,
  type WorkloadObserver,
} from './workload-plan.js';

/** What a write of a DaemonSet answers, as far as the runner reads it. */
type Written = { metadata?: { generation?: number } };

/** The cluster side of one run: its namespace, nodes and DaemonSets. */
export class Workload {
  readonly nodes: string[] = [];
  readonly daemonSets: string[] = [];
  /** Each DaemonSet's generation after the workload's last write of it. */
  readonly generations = new Map<string, number>();
  #nodeBatches = 0;
  #image = 1;
  readonly #kind: KindAccess;
  readonly #runKind: CampaignKind;
  /** An OnDelete run's DaemonSets' rollout controls, as last written. */
  readonly #controls = new Map<string, OnDeleteControls>();

  constructor(
    readonly admin: KubeHttp,
    readonly ns: string,
    readonly adminKubeconfig: string,
    kubectl: string,
    readonly random: SeededRandom,
    readonly observer: WorkloadObserver,
    kind: CampaignKind = 'DaemonSet'
  ) {
    this.#kind = kindAccess(kind, kubectl);
    this.#runKind = kind;
  }

  /** Draws a strategy of the run's kind (OnDelete for an OnDelete run). */
  #drawStrategy(): object {
    if (this.#runKind === 'OnDelete') return { type: 'OnDelete' };
    return this.#kind.kind === 'DaemonSet'
      ? drawStrategy(this.random)
      : drawAdvancedStrategy(this.random);
  }

  /** The opt-in annotation of an OnDelete run's DaemonSet `name`. */
  #annotations(name: string, controls: OnDeleteControls) {
    this.#controls.set(name, controls);
    return { annotations: { [ROLLOUT_ANNOTATION]: JSON.stringify(controls) } };
  }

  /** Writes an OnDelete run's new controls of DaemonSet `name`. */
  async #setControls(name: string, controls: OnDeleteControls): Promise<void> {
    await this.#patchDaemonSet(
      name,
      { metadata: this.#annotations(name, controls) },
      'application/merge-patch+json'
    );
    this.observer.note(`${name}: controls ${JSON.stringify(controls)}`);
  }

  /** The label every node of the run carries. */
  get nodeLabel(): { key: string; value: string } {
    return { key: 'campaign', value: this.ns };
  }

  /** Creates `count` nodes, each in tier a or b. */
  async addNodes(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const tier = this.random.pick(['a', 'b']);
      const names = await createNodes(this.admin, 1, {
        prefix: `${this.ns}-${this.#nodeBatches++}-`,
        labels: { campaign: this.ns, tier },
      });
      this.nodes.push(...names);
      this.observer.note(`node ${names.join()} added in tier ${tier}`);
    }
  }

  /** Creates DaemonSet `ds-<i>` with a random strategy, selector and tolerations. */
  async createDaemonSet(i: number): Promise<void> {
    const name = `ds-${i}`;
    const tierOnly = this.random.chance(0.4);
    const tolerates = this.random.chance(0.5);
    const metadata = {
      name,
      ...(this.#runKind === 'OnDelete'
        ? this.#annotations(name, drawOnDeleteControls(this.random))
        : {}),
    };
    const spec = {
      selector: { matchLabels: { app: name } },
      updateStrategy: withoutNulls(this.#drawStrategy()),
      minReadySeconds: this.random.pick([0, 0, 1]),
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: {
            campaign: this.ns,
            ...(tierOnly ? { tier: 'a' } : {}),
          },
          ...(tolerates
            ? { tolerations: [{ key: CAMPAIGN_TAINT, operator: 'Exists' }] }
            : {}),
          containers: [{ name: 'c', image: `agent:${this.#image}` }],
        },
      },
    };
    const created = await this.admin.request<Written>(
      `create ds ${name}`,
      'POST',
      this.#kind.collection(this.ns),
      {
        body: JSON.stringify({
          apiVersion: this.#kind.apiVersion,
          kind: this.#kind.kind,
          metadata,
          spec,
        }),
      }
    );
    this.daemonSets.push(name);
    this.#wrote(name, created);
    this.observer.note(
      `created ${this.#kind.kind} ${name}: ${JSON.stringify(spec.updateStrategy)} ${JSON.stringify(metadata)} tier-a-only=${tierOnly} tolerates=${tolerates}`
    );
  }

  /** Creates the run's two foreign pods on its first node (foreign-pods.ts). */
  async createForeignPods(): Promise<void> {
    await createForeignPods(
      this.admin,
      this.ns,
      this.nodes[0] ?? '',
      this.observer
    );
  }

  /** Runs one action; a target that vanished meanwhile makes it a no-op. */
  async perform(kind: ActionKind): Promise<void> {
    const ds = this.random.pick(this.daemonSets);
    switch (kind) {
      case 'template-change':
        this.#image++;
        await this.#patchDaemonSet(
          ds,
          {
            spec: {
              template: {
                spec: {
                  containers: [{ name: 'c', image: `agent:${this.#image}` }],
                },
              },
            },
          },
          this.#kind.templatePatch
        );
        return this.observer.note(`${ds}: image agent:${this.#image}`);
      case 'strategy-change': {
        // An OnDelete run changes the controls, never the strategy.
        if (this.#runKind === 'OnDelete') {
          return this.#setControls(ds, drawOnDeleteControls(this.random));
        }
        const updateStrategy = this.#drawStrategy();
        // A merge patch replaces rollingUpdate whole (OnDelete drops it).
        await this.#patchDaemonSet(
          ds,
          {
            spec: {
              updateStrategy: { rollingUpdate: null, ...updateStrategy },
            },
          },
          'application/merge-patch+json'
        );
        return this.observer.note(
          `${ds}: strategy ${JSON.stringify(updateStrategy)}`
        );
      }
      case 'rollout-undo':
      case 'rollout-restart': {
        const verb = kind === 'rollout-undo' ? 'undo' : 'restart';
        const out = await this.#kind.rollout(
          verb,
          this.ns,
          ds,
          this.adminKubeconfig
        );
        // kubectl's answer is not ours to read: read the generation its
        // write made, so convergence waits until the checker's view (held
        // 2 s to order events) shows it (seed 60028: an undo 0.2 s before
        // the faults stopped was judged on the view from before it).
        this.#wrote(
          ds,
          await this.admin.request<Written>(
            `get ${ds}`,
            'GET',
            `${this.#kind.collection(this.ns)}/${ds}`
          )
        );
        return this.observer.note(`${ds}: rollout ${verb}: ${out}`);
      }
      case 'add-node':
        return this.addNodes(1);
      case 'delete-node': {
        if (this.nodes.length <= 2) return;
        const node = this.random.pick(this.nodes.slice(1));
        this.nodes.splice(this.nodes.indexOf(node), 1);
        await deleteNodes(this.admin, [node]);
        await this.#collectPodsOf(node);
        return this.observer.note(`node ${node} deleted, its pods collected`);
      }
      case 'label-flip': {
        const node = this.random.pick(this.nodes);
        const tier = this.random.pick(['a', 'b']);
        await patchNode(this.admin, node, { metadata: { labels: { tier } } });
        return this.observer.note(`node ${node}: tier=${tier}`);
      }
      case 'taint-flip': {
        const node = this.random.pick(this.nodes);
        const effect = this.random.pick([
          'NoExecute',
          'NoSchedule',
          'none',
        ] as const);
        const taints =
          effect === 'none'
            ? null
            : [{ key: CAMPAIGN_TAINT, value: 'x', effect }];
        await patchNode(this.admin, node, { spec: { taints } });
        return this.observer.note(`node ${node}: taint ${effect}`);
      }
      case 'fail-pod':
      case 'delete-pod':
        return this.#hitPod(ds, kind);
    }
  }

  /**
   * Deletes the pods bound to a deleted node at once: what the pod garbage
   * collector does after its 40-s quarantine (upstream's DaemonSet
   * controller leaves them to it, and syncs when they go).
   */
  async #collectPodsOf(node: string): Promise<void> {
    const pods = await this.admin.list<Pod>(
      'list pods',
      `/api/v1/namespaces/${this.ns}/pods`,
      { fieldSelector: `spec.nodeName=${node}` }
    );
    for (const pod of pods) {
      const name = pod.metadata?.name ?? '';
      this.observer.markChaos(name);
      await this.admin
        .request(
          `collect ${name}`,
          'DELETE',
          `/api/v1/namespaces/${this.ns}/pods/${name}`,
          { query: { gracePeriodSeconds: 0 } }
        )
        .catch(() => undefined);
    }
  }

  async #hitPod(ds: string, kind: 'fail-pod' | 'delete-pod'): Promise<void> {
    const pods = await this.admin.list<Pod>(
      'list pods',
      `/api/v1/namespaces/${this.ns}/pods`,
      { labelSelector: `app=${ds}` }
    );
    const live = pods.filter(
      (p) =>
        !p.metadata?.deletionTimestamp &&
        p.metadata?.ownerReferences?.some((o) => o.kind === this.#kind.kind)
    );
    if (live.length === 0) return;
    const name = this.random.pick(live).metadata?.name ?? '';
    this.observer.markChaos(name);
    await (kind === 'fail-pod'
      ? failPod(this.admin, this.ns, name)
      : deletePod(this.admin, this.ns, name));
    this.observer.note(
      `${ds}: pod ${name} ${kind === 'fail-pod' ? 'failed' : 'deleted'}`
    );
  }

  /**
   * Ends an AdvancedDaemonSet run's held rollouts, as a user finishing them
   * does; an OnDelete run's are resumed and lose their canary selector, and
   * keep their partition.
   */
  async promote(): Promise<void> {
    if (this.#runKind === 'OnDelete') {
      for (const [ds, controls] of this.#controls) {
        const promoted = promotedOnDeleteControls(controls);
        // Only a held rollout is written: a write wakes its DaemonSet, and
        // would hide a wake-up lost before the faults stopped.
        if (JSON.stringify(promoted) === JSON.stringify(controls)) continue;
        await this.#setControls(ds, promoted);
      }
      return;
    }
    if (this.#kind.kind === 'DaemonSet') return;
    for (const ds of this.daemonSets) {
      await this.#patchDaemonSet(
        ds,
        PROMOTE_PATCH,
        'application/merge-patch+json'
      );
      this.observer.note(`${ds}: promoted (partition 0, resumed, no selector)`);
    }
  }

  async #patchDaemonSet(
    name: string,
    patch: object,
    contentType: ContentType
  ): Promise<void> {
    const patched = await this.admin.request<Written>(
      `patch ${name}`,
      'PATCH',
      `${this.#kind.collection(this.ns)}/${name}`,
      { body: JSON.stringify(patch), contentType }
    );
    this.#wrote(name, patched);
  }

  #wrote(name: string, answer: Written | undefined): void {
    const generation = answer?.metadata?.generation ?? 0;
    this.generations.set(
      name,
      Math.max(generation, this.generations.get(name) ?? 0)
    );
  }

  /** Deletes the run's nodes (the namespace goes with the run). */
  async removeNodes(): Promise<void> {
    await deleteNodes(this.admin, this.nodes);
  }
}
