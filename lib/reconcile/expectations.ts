/**
 * Ports the decision half of `ControllerExpectations`
 * (pkg/controller/controller_utils.go): when a record counts as satisfied.
 * Stores keep the record; this module alone says what it means.
 */

/**
 * How long expectations wait for watch events before they are ignored
 * (upstream `ExpectationsTimeout`): a lost event must not stall a DaemonSet.
 */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

/** Outstanding creates/deletes for one DaemonSet key. */
export interface ExpectationsRecord {
  add: number;
  del: number;
  timestampMs: number;
}

/**
 * Returns the record with `add` creations and `del` deletions more
 * observed (upstream `LowerExpectations`), its timestamp kept.
 */
export const lowered = (
  record: ExpectationsRecord,
  add: number,
  del: number
): ExpectationsRecord => ({
  ...record,
  add: record.add - add,
  del: record.del - del,
});

/** Returns whether the record has passed the expectations timeout. */
export const isExpired = (record: ExpectationsRecord, nowMs: number): boolean =>
  nowMs - record.timestampMs > EXPECTATIONS_TIMEOUT_MS;

/**
 * Returns whether a sync may act: no record, a fulfilled record
 * (`add <= 0 && del <= 0`), or an expired one (upstream
 * `SatisfiedExpectations`).
 */
export const expectationsSatisfied = (
  record: ExpectationsRecord | undefined,
  nowMs: number
): boolean =>
  record === undefined ||
  (record.add <= 0 && record.del <= 0) ||
  isExpired(record, nowMs);
