/** The text `kubectl dsr --help` prints. */
export const PLUGIN_USAGE = `Manage AdvancedDaemonSets (apps.dsr.dev) the way kubectl manages DaemonSets,
ask why a node has no daemon pod, and what the next sync would do.
Installed as both \`dsr\` and \`kubectl dsr\`.

Usage:
  kubectl dsr rollout status advds/NAME [--watch=false] [--timeout=5m]
  kubectl dsr rollout history advds/NAME [--revision=N]
  kubectl dsr rollout undo advds/NAME [--to-revision=N] [--dry-run=client|server]
  kubectl dsr rollout pause|resume|restart advds/NAME [--dry-run=client|server]
  kubectl dsr set partition advds/NAME N|N% [--dry-run=client|server]
  kubectl dsr get [NAME] [-A]
  kubectl dsr plan NAMESPACE/NAME [-o json|yaml]
                       what the next sync would do: creates, deletes,
                       surge nodes, update budget left, status, requeue
  kubectl dsr explain node NODE --ds NAMESPACE/NAME [-o json|yaml]
                       why NODE has, or has no, daemon pod: the predicate
                       (nodeName, nodeSelector, affinity term, taint),
                       failed-pod backoff, partition, canary selector, pause
  (plan and explain write nothing, need only read access, and take apps/v1
   DaemonSets (ds/NAME) and AdvancedDaemonSets (advds/NAME) alike; with
   --cluster ID --stage NAME [--region R] (or --table NAME [--endpoint URL])
   they also read the reconcilers' expectations and failed-pod backoff)
  kubectl dsr migrate ds/NAME | daemonsets.apps.kruise.io/NAME | advds/NAME
                       [--dry-run=client|server] [--timeout=60s]
                       moves a DaemonSet to the own kind (or an
                       AdvancedDaemonSet back to apps/v1) without restarting
                       a pod; every write is tried with dryRun=All first, a
                       copy is saved before the source is deleted, and a
                       re-run resumes a migration that stopped half-way

  kubectl dsr clusters list|add|check|remove|unfence ...
                       the reconciler's cluster registry in AWS
                       ('dsr clusters --help')

Flags:
      --dry-run=client|server   client: print what would be sent, send
                       nothing; server: send each write with dryRun=All
  -n, --namespace NS   the namespace (default: the context's)
      --context NAME   the kubeconfig context
      --kubeconfig F   the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)
`;
