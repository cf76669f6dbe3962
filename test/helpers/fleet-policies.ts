/**
 * Fleet rollout policies for tests: the document around a `spec`, parsed
 * as `dsr fleet apply` parses it.
 */
import { type FleetPolicy, parseFleetPolicy } from '#lib/fleet/fleet-policy.js';

/** Returns policy `name` over `spec`, targeting kube-system/agent unless it says. */
export const testFleetPolicy = (
  name: string,
  spec: Record<string, unknown>
): FleetPolicy =>
  parseFleetPolicy({
    apiVersion: 'fleet.dsr.dev/v1alpha1',
    kind: 'FleetRolloutPolicy',
    metadata: { name },
    spec: { target: { namespace: 'kube-system', name: 'agent' }, ...spec },
  });
