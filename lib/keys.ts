/**
 * The one format of a work-queue key: `cluster/namespace/name`. Every
 * component that produces or consumes keys uses these two functions.
 */
import { TerminalError } from './errors.js';

/** A DaemonSet in one registered cluster. */
export interface DaemonSetKey {
  cluster: string;
  namespace: string;
  name: string;
}

const SEGMENT = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * The longest each segment can be: a cluster id and a namespace are
 * DNS-1123 labels (63), a DaemonSet name a DNS-1123 subdomain (253).
 */
const SEGMENTS = [
  { what: 'cluster id', max: 63 },
  { what: 'namespace', max: 63 },
  { what: 'name', max: 253 },
] as const;

/** Returns the key string for a DaemonSet. */
export const formatDaemonSetKey = (k: DaemonSetKey): string =>
  `${k.cluster}/${k.namespace}/${k.name}`;

/**
 * Returns the parts of `cluster/namespace/name`; a malformed key is a
 * TerminalError (retrying cannot fix it).
 */
export const parseDaemonSetKey = (key: string): DaemonSetKey => {
  const parts = key.split('/');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) {
    throw new TerminalError(
      `malformed DaemonSet key ${JSON.stringify(key).slice(0, 300)}: want cluster/namespace/name`
    );
  }
  SEGMENTS.forEach(({ what, max }, i) => {
    const length = parts[i]?.length ?? 0;
    if (length > max) {
      throw new TerminalError(
        `malformed DaemonSet key ${JSON.stringify(key).slice(0, 300)}: ${what} is ${length} characters long, at most ${max}`
      );
    }
  });
  const [cluster, namespace, name] = parts as [string, string, string];
  return { cluster, namespace, name };
};

/** The prefix of a fleet rollout's work-queue key, `fleet:<policy>`. */
const FLEET_KEY_PREFIX = 'fleet:';

/** Returns the work-queue key of the fleet rollout of policy `name`. */
export const formatFleetKey = (name: string): string =>
  `${FLEET_KEY_PREFIX}${name}`;

/**
 * Returns the policy name a fleet rollout key names, or undefined for any
 * other key (a DaemonSet key has no ':').
 */
export const fleetPolicyOf = (key: string): string | undefined =>
  key.startsWith(FLEET_KEY_PREFIX)
    ? key.slice(FLEET_KEY_PREFIX.length)
    : undefined;
