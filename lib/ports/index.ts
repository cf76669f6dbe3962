/**
 * Every port, by subject: one sync (sync.ts), the work queue (queue.ts), the
 * watch-bridge (bridge.ts) and the fleet (fleet.ts). Nothing here imports a
 * runtime library.
 */
export type * from './bridge.js';
export type * from './fleet.js';
export type * from './queue.js';
export type * from './sync.js';
