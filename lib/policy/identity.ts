/**
 * Who the reconciler is to the API server: its User-Agent, which the server
 * records as the manager of every field we write (managedFields). That is
 * how fight detection tells our writes from another controller's.
 */
export const USER_AGENT = 'serverless-daemonset-reconciler';
