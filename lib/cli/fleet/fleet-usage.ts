/**
 * The help texts of `dsr fleet`: the overview (`--help`), one text per
 * verb (`apply --help`, `help apply`), and the line a usage error ends
 * with, pointing at the right one.
 */
import { TABLE_LOCATOR_USAGE } from '../stack-table.js';
import type { FleetVerb } from './fleet-command.js';

const RUN = 'npx dsr fleet';

/** The options every verb takes. */
const FLEET_COMMON_USAGE = `
options of every verb:
${TABLE_LOCATOR_USAGE}
  -o, --output FORMAT   json or yaml
  -h, --help            this text
`;

/** The text `--help` prints: every verb in a line. */
const OVERVIEW = `usage: ${RUN} <verb> [NAME] [options]

rolls one DaemonSet change across the registered clusters in waves
(FleetRolloutPolicy, fleet.dsr.dev/v1alpha1)

verbs:
  apply -f FILE         stores a policy (YAML or JSON) and prints its waves
  list                  every policy: phase, wave under way, clusters done
  status NAME           the rollout by wave and cluster: phase, node step,
                        why it waits, stable and target revision
  history NAME          what the rollout and its operators did, with times
  pause NAME            holds the rollout at its current steps
  resume NAME           lets a paused rollout go on
  abort NAME            stops the rollout under way; the holds stay
  approve NAME WAVE     lets a wave with approval: manual start
  rollback NAME CLUSTER sets CLUSTER's template back to its stable
                        revision, with your kubeconfig
  delete NAME           deletes a policy and releases its holds
${FLEET_COMMON_USAGE}
exit codes: 0 done, 1 failed or refused, 2 bad command line
'${RUN} <verb> --help' shows a verb's options.
`;

const VERB_USAGE: Record<FleetVerb, string> = {
  apply: `usage: ${RUN} apply -f FILE [--dry-run]

stores the FleetRolloutPolicy in FILE (YAML or JSON; - reads stdin) and
prints which registered clusters fall in which wave; a stored policy of
the same name is replaced, and its rollout keeps its state, controls and
history. An invalid policy is refused with every problem by field path,
as is a second policy for the same DaemonSet, or a new target for a
stored one (delete it first)

  -f, --filename FILE   the policy document
  --dry-run             check the policy and print the wave plan; store
                        nothing
`,
  list: `usage: ${RUN} list

every policy: NAME, TARGET, PHASE (with a control its sync has not taken
yet, e.g. "Progressing (pausing)"), the WAVE under way (and whether it
waits for approval or bakes), CLUSTERS done of those in a wave, FAILED
clusters, and AGE since the policy was last applied
`,
  status: `usage: ${RUN} status NAME

the rollout's phase, why it halted, its controls, and per wave its
approval and bake, then per cluster its phase (Pending, Progressing,
Baking, Done, Failed, Unknown), node step and partition, why it waits or
failed, and the stable and target revision it is pinned to
`,
  history: `usage: ${RUN} history NAME

the rollout's history, oldest first: what its syncs decided and the
controls its operators gave, each with its time
`,
  pause: `usage: ${RUN} pause NAME

holds the rollout at its current steps: no cluster, wave or node step
starts or advances until resume, while the pods of a step under way still
roll up to its partition (a pause also holds a rollout that has not
started yet)
`,
  resume: `usage: ${RUN} resume NAME

lets a paused rollout go on (a halted one stays halted until a newer
template starts a new rollout)
`,
  abort: `usage: ${RUN} abort NAME

stops the rollout under way: no cluster, wave or node step starts or
advances again for its target revision, and every cluster keeps its hold;
a newer template starts a new rollout. Exit code 1 when no rollout is
under way
`,
  approve: `usage: ${RUN} approve NAME WAVE

lets WAVE (approval: manual) start once the waves before it are done and
baked; the approval applies to the rollout under way, not to a later one.
Exit code 1 for a wave the policy does not name, or when no rollout is
under way
`,
  rollback: `usage: ${RUN} rollback NAME CLUSTER [--context CTX] [--kubeconfig PATH] [--dry-run]

sets the template of the policy's DaemonSet in CLUSTER back to the stable
revision the rollout pinned for it (from the cluster's ControllerRevision
of that revision), as kubectl rollout undo does; the cluster's pods then
roll back at its own pace, held by no fleet step. The reconcilers may not
write a template, so this runs with your kubeconfig, as kubectl does:
the context (the current one, or --context) must point at the server
CLUSTER is registered at, or nothing is read. The write holds only if the DaemonSet did not change since it was
read. GitOps that applied the new template applies it again: revert it
there too. The rollout itself stays as it is (halted, paused); exit code
1 when CLUSTER has no stable revision pinned or its history lost it

  --context NAME        the kubeconfig context of CLUSTER (default: the
                        current context)
  --kubeconfig PATH     the kubeconfig file (default: $KUBECONFIG, else
                        ~/.kube/config)
  --dry-run             send the write as a server-side dry run; store
                        nothing
`,
  delete: `usage: ${RUN} delete NAME [--force]

deletes the policy and releases the hold it puts on each member cluster,
which then rolls as its own update strategy says; refused while a rollout
is under way (any phase but Idle and Done) unless --force

  --force               delete a rollout under way, releasing its holds
`,
};

/**
 * Returns the help text of `topic`, or the overview.
 *
 * @example
 * process.stdout.write(fleetUsageOf('apply'));
 */
export const fleetUsageOf = (topic?: FleetVerb): string =>
  topic === undefined ? OVERVIEW : `${VERB_USAGE[topic]}${FLEET_COMMON_USAGE}`;

/** Returns the command that prints the help for `verb` (or the overview). */
export const fleetHelpCommandOf = (verb?: FleetVerb): string =>
  `${RUN} ${verb === undefined ? '' : `${verb} `}--help`;
