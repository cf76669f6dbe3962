/**
 * Every port, by subject: one sync (sync.ts), the work queue (queue.ts), the
 * watch-bridge (bridge.ts), the fleet (fleet.ts), the kubectl plugin
 * (plugin.ts), the guards of a cluster's syncs (guards.ts) and the deployed
 * stack (deployment.ts).
 * Nothing here imports a runtime library.
 */
export type * from './bridge.js';
export type * from './deployment.js';
export type * from './fleet.js';
export type * from './fleet-rollouts.js';
export type * from './guards.js';
export type * from './plugin.js';
export type * from './queue.js';
export type * from './sync.js';
