import { describe } from 'vitest';
import { MemoryFleetRolloutStore } from '#lib/adapters/memory/memory-fleet-rollout-store.js';
import { fleetRolloutStoreContract } from '#test/helpers/fleet-rollout-store-contract.js';

describe('MemoryFleetRolloutStore', () => {
  fleetRolloutStoreContract(async () => new MemoryFleetRolloutStore(), {
    manyMembers: 150,
  });
});
