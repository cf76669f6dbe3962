/**
 * The runtime's configuration, read once from the environment and validated
 * as a whole: one ConfigError lists every missing or invalid key. Nothing
 * else under lib/ reads `process.env`; serverless.yml is the only place the
 * variable names are set.
 */
import { ConfigError } from './errors.js';

/** What the Lambda functions need to run. */
export interface Config {
  /** The one DynamoDB table (state, leases, registry). */
  tableName: string;
  /** FIFO work queue: one message group per DaemonSet key. */
  workQueueUrl: string;
  /** Standard queue carrying delayed requeues (timers). */
  delayQueueUrl: string;
  /** Powertools log level. */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Bridge: how long one watch-mode invocation keeps watching. */
  bridgeWatchSeconds: number;
  /** Bridge: how long one economy-mode invocation drains events. */
  bridgeEconomySeconds: number;
  /** Bridge: every DaemonSet is enqueued again this often (resync). */
  bridgeResyncSeconds: number;
  /** Reconcile: syncs of one cluster that run at once, fleet-wide. */
  reconcilePerCluster: number;
  /** Bridge: watch-mode clusters one invocation bridges at most. */
  bridgeClustersPerTurn: number;
  /** Bridge: nodes (summed over its clusters) one invocation bridges at most. */
  bridgeNodesPerTurn: number;
  /**
   * Dispatcher: the economy function's reserved concurrency; more economy
   * runs than this in a tick are launched spread over the tick.
   */
  bridgeEconomyConcurrency: number;
  /** Dispatcher: the bridge functions it launches turns on. */
  bridgeFunctions?: { watch: string; economy: string };
  /**
   * This deployment's id (`<service>-<stage>-<region>`): its field manager
   * on the clusters, so another deployment's writes count as a rival's.
   */
  deploymentId?: string;
  /**
   * Metrics per cluster (a CloudWatch dimension, ~$1.80 per cluster-month)
   * instead of fleet-wide with the cluster as a log property.
   */
  perClusterMetrics: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/**
 * Returns the validated configuration; throws one ConfigError naming every
 * problem.
 *
 * @example
 * const config = loadConfig(); // at module scope, once per cold start
 */
export const loadConfig = (env: Env = process.env): Config => {
  const problems: string[] = [];
  const text = (name: string): string => {
    const v = env[name]?.trim();
    if (!v) problems.push(`${name} is not set`);
    return v ?? '';
  };
  const whole =
    (unit: string) =>
    (name: string, fallback: number, max: number): number => {
      const raw = env[name]?.trim();
      if (!raw) return fallback;
      const v = Number(raw);
      if (!Number.isInteger(v) || v < 1 || v > max) {
        problems.push(`${name} must be a whole number${unit} in 1..${max}`);
      }
      return v;
    };
  const seconds = whole(' of seconds');
  const count = whole('');
  const flag = (name: string): boolean => {
    const raw = env[name]?.trim().toLowerCase() ?? '';
    if (!['', 'true', 'false'].includes(raw)) {
      problems.push(`${name} must be true or false`);
    }
    return raw === 'true';
  };
  const level = (env.LOG_LEVEL?.trim() || 'INFO').toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const config: Config = {
    tableName: text('TABLE_NAME'),
    workQueueUrl: text('WORK_QUEUE_URL'),
    delayQueueUrl: text('DELAY_QUEUE_URL'),
    logLevel: level as Config['logLevel'],
    bridgeWatchSeconds: seconds('BRIDGE_WATCH_SECONDS', 840, 900),
    bridgeEconomySeconds: seconds('BRIDGE_ECONOMY_SECONDS', 20, 900),
    bridgeResyncSeconds: seconds('BRIDGE_RESYNC_SECONDS', 3_600, 86_400),
    reconcilePerCluster: count('RECONCILE_PER_CLUSTER', 5, 1_000),
    bridgeClustersPerTurn: count('BRIDGE_CLUSTERS_PER_TURN', 10, 100),
    bridgeNodesPerTurn: count('BRIDGE_NODES_PER_TURN', 5_000, 1_000_000),
    bridgeEconomyConcurrency: count('BRIDGE_ECONOMY_CONCURRENCY', 50, 1_000),
    perClusterMetrics: flag('PER_CLUSTER_METRICS'),
    ...bridgeFunctions(env, problems),
    ...(env.DEPLOYMENT_ID?.trim()
      ? { deploymentId: env.DEPLOYMENT_ID.trim() }
      : {}),
  };
  if (config.workQueueUrl && !config.workQueueUrl.endsWith('.fifo')) {
    problems.push('WORK_QUEUE_URL must name a FIFO queue (.fifo)');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
};

/** Both bridge function names, or neither (only the dispatcher has them). */
const bridgeFunctions = (
  env: Env,
  problems: string[]
): Pick<Config, 'bridgeFunctions'> => {
  const watch = env.BRIDGE_WATCH_FUNCTION?.trim() ?? '';
  const economy = env.BRIDGE_ECONOMY_FUNCTION?.trim() ?? '';
  if (!watch && !economy) return {};
  if (!watch || !economy) {
    problems.push(
      'BRIDGE_WATCH_FUNCTION and BRIDGE_ECONOMY_FUNCTION are set together'
    );
  }
  return { bridgeFunctions: { watch, economy } };
};
