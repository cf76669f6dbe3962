/**
 * The help texts of `dsr clusters`: the overview (`--help`), one text
 * per command (`add --help`, `help add`), and the line a usage error ends
 * with, pointing at the right one.
 */

import { TABLE_LOCATOR_USAGE } from '../stack-table.js';
import type { CommandName } from './clusters-command.js';

const RUN = 'npx dsr clusters';

/** The options every command takes; `list` also prints `-o wide`. */
const commonOptions = (name: CommandName | undefined): string => `
options of every command:
${TABLE_LOCATOR_USAGE}
  -o, --output FORMAT   ${name === 'list' ? 'wide, json or yaml' : name === undefined ? 'json or yaml (list: also wide)' : 'json or yaml'}; --json is -o json
  -h, --help            this text
`;

/** The text `--help` prints: every command in a line. */
const OVERVIEW = `usage: ${RUN} <command> [options]

commands:
  list      the registered clusters: status, API budget, last bridge run
  add       registers a cluster, once it passes the checks of check
  check     reachability, version, authentication, RBAC and ownership
  remove    deletes a cluster's record, with its bookmarks and fence
  unfence   lets the reconciler act again where it stopped for another
            DaemonSet controller
  label     sets or removes a cluster's registration labels
${commonOptions(undefined)}
'${RUN} <command> --help' shows a command's options.
`;

const COMMAND_USAGE: Record<CommandName, string> = {
  list: `usage: ${RUN} list [-o wide|json|yaml] [--no-headers]

the registered clusters: id, server, mode, status (Ready, Unhealthy,
Fenced), API budget ceiling (qps/burst; the rate adapts below it), when
the bridge last checkpointed, and how the reconciler authenticates; exit
code 1 while an invalid record is skipped

  -o wide               also the bridge's state, the node count, the
                        ownership, the labels and the auth details
  --no-headers          table output without its header line
`,
  add: `usage: ${RUN} add --id ID AUTH [options]

registers a cluster, after the checks of check (reachability, version,
authentication, RBAC, ownership): if one fails, nothing is written

AUTH is one of
  --eks-cluster NAME [--eks-region R] [--role-arn ARN] [--server URL CA]
                        the endpoint and CA are asked of EKS when left out
  --secret-arn ARN --server URL CA
                        the secret holds {"token": T, "server": URL,
                        "caData": BASE64} (or {"kubeconfig": YAML} whose
                        current cluster names them); a record that differs
                        is refused before the token is sent
  --kubeconfig PATH [--context NAME]
                        a file on this machine, which the deployed functions
                        cannot read: local runs and tests only (needs
                        --endpoint)
CA is --ca-file PEM or --ca-data BASE64 (TLS is always verified)

  --mode watch|economy  how the bridge follows the cluster (default watch)
  --ownership apps/v1|apps/v1+OnDelete|apps.dsr.dev/v1beta1
                        which DaemonSets it reconciles: native ones
                        (default; the cluster's own DaemonSet controller
                        must be off); the rollouts of native OnDelete
                        DaemonSets annotated apps.dsr.dev/rollout, beside
                        the cluster's own controller (EKS, GKE, AKS); or
                        the own AdvancedDaemonSet kind (EKS, GKE, AKS)
  --api-qps N --api-burst N
                        the most the cluster's shared API budget may use
                        (default 400 and 800; burst 2 × N when only
                        --api-qps is given); the rate starts at 50 and
                        adapts below it to what the API server admits
  --replace             overwrite the cluster registered under ID (one at
                        another API server or EKS cluster starts afresh:
                        the old one's bookmarks and fence are forgotten)
  --label KEY=VALUE     a registration label (repeatable); fleet rollout
                        policies select clusters by them
  --skip-check          register without checking (e.g. the cluster is not
                        reachable from here)
  --timeout SECONDS     how long GET /version, and the question whether
                        another DaemonSet controller is active, may take
                        (default 5)
`,
  check: `usage: ${RUN} check [--id ID] [--timeout SECONDS]

checks one cluster, or every registered one: reachability and version,
authentication, every permission of the reconciler's role, whether another
DaemonSet controller is active, and what the reconcilers recorded (fence,
breaker); exit code 0 only if everything holds

  --id ID               the cluster (default: every one)
  --timeout SECONDS     how long GET /version, and the question whether
                        another DaemonSet controller is active, may take
                        (default 5)
`,
  remove: `usage: ${RUN} remove --id ID

deletes the cluster's record, with its bridge bookmarks and fence; exit
code 1 when ID is not registered
`,
  unfence: `usage: ${RUN} unfence --id ID [--daemonset NS/NAME]

lets the reconciler act again on a cluster it stopped on because another
DaemonSet controller was active there (turn that controller off first);
exit code 1 when ID is not registered

  --daemonset NS/NAME   clear the fence of this DaemonSet only
`,
  label: `usage: ${RUN} label --id ID KEY=VALUE… KEY-… [--overwrite]

sets (KEY=VALUE) or removes (KEY-) registration labels, as kubectl label
does; fleet rollout policies select clusters by them

  --overwrite           let KEY=VALUE replace a label that has another value
`,
};

/**
 * Returns the help text of `topic`, or the overview.
 *
 * @example
 * process.stdout.write(usageOf('add'));
 */
export const usageOf = (topic?: CommandName): string =>
  topic === undefined
    ? OVERVIEW
    : `${COMMAND_USAGE[topic]}${commonOptions(topic)}`;

/** Returns the command that prints the help for `command` (or the overview). */
export const helpCommandOf = (command?: CommandName): string =>
  `${RUN} ${command === undefined ? '' : `${command} `}--help`;
