/**
 * Who the reconciler is to the API server: its User-Agent, which the server
 * records as the manager of every field we write (managedFields). That is
 * how fight detection tells our writes from another controller's — and
 * from another deployment of this product (dev and prod, a DR region), which
 * would be a rival controller just the same: each deployment writes under
 * its own name, and any other name counts as foreign.
 */
export const USER_AGENT = 'serverless-daemonset-reconciler';

/**
 * Returns the field manager (and User-Agent) of a deployment: the product's
 * name, then `.` and the deployment's id (`<service>-<stage>-<region>`);
 * the bare name for local runs without one.
 *
 * @example
 * fieldManagerFor('serverless-daemonset-reconciler-prod-eu-west-1');
 * // 'serverless-daemonset-reconciler.serverless-daemonset-reconciler-prod-eu-west-1'
 */
export const fieldManagerFor = (deploymentId?: string): string =>
  deploymentId ? `${USER_AGENT}.${deploymentId}` : USER_AGENT;

/** Returns whether a field manager is a deployment of this product. */
export const isThisProduct = (manager: string): boolean =>
  manager === USER_AGENT || manager.startsWith(`${USER_AGENT}.`);
