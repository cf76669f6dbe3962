import type { EventRecorder, RecordedEventType } from '#lib/ports/index.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';

/** Records events like upstream's `record.FakeRecorder`. */
export class FakeEventRecorder implements EventRecorder {
  events: { type: RecordedEventType; reason: string; message: string }[] = [];
  async record(
    _object: DaemonSet,
    type: RecordedEventType,
    reason: string,
    message: string
  ): Promise<void> {
    this.events.push({ type, reason, message });
  }
}
