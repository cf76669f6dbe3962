/**
 * The arguments of `kubectl dsr` verbs that are not flags: TARGET
 * (`advds/NAME`, the kind's other names, or a bare NAME), migrate's source
 * kind, kubectl durations and set image's CONTAINER=IMAGE pairs.
 */
import { CliUsageError } from '../cli-usage-error.js';

/** The names kubectl users type for the own kind. */
export const KIND_NAMES = [
  'advds',
  'advanceddaemonset',
  'advanceddaemonsets',
  'advanceddaemonset.apps.dsr.dev',
  'advanceddaemonsets.apps.dsr.dev',
];

/** The kinds `migrate` moves from. */
export type MigrateSource =
  | 'apps/v1'
  | 'apps.dsr.dev/v1beta1'
  | 'apps.kruise.io/v1beta1';

/** The kinds `migrate` moves from, by the names kubectl users type. */
const MIGRATE_SOURCES: Record<string, MigrateSource> = {
  ds: 'apps/v1',
  daemonset: 'apps/v1',
  daemonsets: 'apps/v1',
  'daemonset.apps': 'apps/v1',
  'daemonsets.apps': 'apps/v1',
  'daemonset.apps.kruise.io': 'apps.kruise.io/v1beta1',
  'daemonsets.apps.kruise.io': 'apps.kruise.io/v1beta1',
  ...Object.fromEntries(
    KIND_NAMES.map((k) => [k, 'apps.dsr.dev/v1beta1' as const])
  ),
};

/** Returns what `migrate TARGET` moves: its current kind and name. */
export const migrateSource = (target: string | undefined) => {
  const [kind = '', name, ...rest] = (target ?? '').split('/');
  const from = MIGRATE_SOURCES[kind.toLowerCase()];
  if (from === undefined || name === undefined || rest.length > 0) {
    throw new CliUsageError([
      'migrate takes ds/NAME, daemonsets.apps.kruise.io/NAME or advds/NAME',
    ]);
  }
  return { from, name };
};

/** Returns the object name of `advds/NAME` (or of a bare NAME). */
export const nameOfTarget = (target: string | undefined): string => {
  if (target === undefined) {
    throw new CliUsageError(['required resource not specified']);
  }
  const [kind, name, ...rest] = target.split('/');
  if (name === undefined) return kind ?? '';
  if (!KIND_NAMES.includes(kind?.toLowerCase() ?? '') || rest.length > 0) {
    throw new CliUsageError([
      `the server doesn't have a resource type "${kind}" here: use advds/NAME`,
    ]);
  }
  return name;
};

/** The names kubectl users type for apps/v1 DaemonSets. */
const NATIVE_NAMES = [
  'ds',
  'daemonset',
  'daemonsets',
  'daemonset.apps',
  'daemonsets.apps',
];

/** The rollout verbs that take an apps/v1 OnDelete DaemonSet too. */
const NATIVE_ROLLOUT_VERBS = ['status', 'history', 'pause', 'resume'];

/**
 * Returns the object a rollout verb names: `advds/NAME` (or a bare NAME),
 * or, for status, history, pause and resume, `ds/NAME`, an apps/v1
 * DaemonSet the OnDelete mode rolls out.
 */
export const rolloutTarget = (
  target: string | undefined,
  verb: string
): { name: string; native?: true } => {
  const [kind = '', name, ...rest] = (target ?? '').split('/');
  if (name === undefined || !NATIVE_NAMES.includes(kind.toLowerCase())) {
    return { name: nameOfTarget(target) };
  }
  if (rest.length > 0) nameOfTarget(target);
  if (!NATIVE_ROLLOUT_VERBS.includes(verb)) {
    throw new CliUsageError([
      verb === 'partition'
        ? 'the partition of an apps/v1 DaemonSet is in its apps.dsr.dev/rollout annotation, which GitOps applies: change it there'
        : `kubectl rollout ${verb} ds/${name} does that for apps/v1 DaemonSets`,
    ]);
  }
  return { name, native: true };
};

/** Returns milliseconds of a kubectl duration (`90s`, `5m`, `1h`, `0`). */
export const durationMs = (text: string): number => {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text);
  if (m === null) throw new CliUsageError([`invalid duration "${text}"`]);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] ?? 1;
  return Number(m[1]) * unit;
};

/**
 * Returns set image's `CONTAINER=IMAGE` pairs, in order
 * (staging/src/k8s.io/kubectl/pkg/cmd/set/set_image.go `parseImages`).
 */
export const parseImages = (
  args: readonly string[]
): { container: string; image: string }[] => {
  if (args.length === 0) {
    throw new CliUsageError(['at least one image update is required']);
  }
  return args.map((arg) => {
    const at = arg.indexOf('=');
    if (at <= 0 || at === arg.length - 1) {
      throw new CliUsageError([
        `invalid image update "${arg}": use CONTAINER=IMAGE`,
      ]);
    }
    return { container: arg.slice(0, at), image: arg.slice(at + 1) };
  });
};
