/**
 * In-process ExpectationsStore for the local run and tests: upstream's
 * `ControllerExpectations` with an injected clock (lib/policy's table).
 */
import { ExpectationsTable } from '../../policy/expectations-table.js';

/** Expectations kept in a Map, keyed by DaemonSet key. */
export class MemoryExpectationsStore extends ExpectationsTable {}
