/**
 * Ports apimachinery's label selection as the DaemonSet controller uses it:
 * `metav1.LabelSelectorAsSelector` (pkg/apis/meta/v1/helpers.go),
 * `labels.NewRequirement` and `Requirement.Matches` (pkg/labels/selector.go).
 * Node affinity's `matchExpressions` reuse the requirement, adding `Gt`/`Lt`.
 *
 * Assumptions / Invariants:
 * - An undefined selector matches nothing, an empty one everything.
 * - An invalid requirement is an error (InvalidObjectError), never a silent
 *   match; callers that must tolerate bad input (node affinity) catch it.
 * - `Gt`/`Lt` compare as Go `strconv.ParseInt(v, 10, 64)`: an optional sign,
 *   decimal digits, int64 range; anything else never matches.
 */
import { InvalidObjectError } from '../../errors.js';
import type { LabelSelector } from './types.js';

/** A label set as the matchers read it; absent labels are `undefined`. */
export type Labels = Readonly<Record<string, string>> | undefined;

/** The operators `labels.NewRequirement` accepts from API objects. */
export type RequirementOperator =
  | 'In'
  | 'NotIn'
  | 'Exists'
  | 'DoesNotExist'
  | 'Gt'
  | 'Lt';

/** One parsed requirement: key, operator, values. */
export interface Requirement {
  key: string;
  operator: RequirementOperator;
  values: readonly string[];
}

/** `validation.qualifiedNameFmt`; also `LabelValueFmt` when non-empty. */
const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** `validation.dns1123SubdomainFmt`. */
const DNS_SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** What Go's `strconv.ParseInt(s, 10, 64)` accepts before range checks. */
const INTEGER = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** `validation.qualifiedNameMaxLength` and `LabelValueMaxLength`. */
const NAME_MAX = 63;
/** `validation.DNS1123SubdomainMaxLength`. */
const PREFIX_MAX = 253;

/** Returns the int64 Go would parse from `s`, or undefined on error. */
const parseInt64 = (s: string): bigint | undefined => {
  if (!INTEGER.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
};

/** `validation.IsQualifiedName`: `[prefix/]name`, prefix a DNS subdomain. */
const isQualifiedName = (key: string): boolean => {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const [first = '', second] = parts;
  const name = second ?? first;
  if (second !== undefined) {
    if (first.length === 0 || first.length > PREFIX_MAX) return false;
    if (!DNS_SUBDOMAIN.test(first)) return false;
  }
  return name.length > 0 && name.length <= NAME_MAX && NAME.test(name);
};

/** `validation.IsValidLabelValue`: empty, or a ≤ 63-char name. */
const isLabelValue = (v: string): boolean =>
  v === '' || (v.length <= NAME_MAX && NAME.test(v));

const isOperator = (op: string): op is RequirementOperator =>
  ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'].includes(op);

/**
 * Returns a validated requirement, as upstream `labels.NewRequirement`.
 *
 * @throws InvalidObjectError with upstream's reason when the key, operator
 *   or values are invalid.
 */
export const newRequirement = (
  key: string,
  operator: string,
  values: readonly string[] = []
): Requirement => {
  const fail = (reason: string): never => {
    throw new InvalidObjectError(`label requirement on "${key}": ${reason}`);
  };
  if (!isQualifiedName(key)) fail('invalid label key');
  if (!isOperator(operator)) {
    return fail(`operator "${operator}" is not supported`);
  }
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        fail("for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) {
        fail('values set must be empty for exists and does not exist');
      }
      break;
    default:
      if (values.length !== 1) {
        fail("for 'Gt', 'Lt' operators, exactly one value is required");
      }
      if (values.some((v) => parseInt64(v) === undefined)) {
        fail("for 'Gt', 'Lt' operators, the value must be an integer");
      }
  }
  const bad = values.find((v) => !isLabelValue(v));
  if (bad !== undefined) fail(`invalid label value "${bad}"`);
  return { key, operator, values: [...values] };
};

/**
 * Returns whether the labels satisfy one requirement, as upstream
 * `Requirement.Matches` (which re-checks `Gt`/`Lt` values itself).
 */
export const requirementMatches = (r: Requirement, labels: Labels): boolean => {
  const value =
    labels !== undefined && Object.hasOwn(labels, r.key)
      ? labels[r.key]
      : undefined;
  switch (r.operator) {
    case 'In':
      return value !== undefined && r.values.includes(value);
    case 'NotIn':
      return value === undefined || !r.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    default: {
      const [raw, ...extra] = r.values;
      if (value === undefined || raw === undefined || extra.length > 0) {
        return false;
      }
      const actual = parseInt64(value);
      const bound = parseInt64(raw);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'Gt' ? actual > bound : actual < bound;
    }
  }
};

/**
 * Returns whether the selector is defined but has no matchLabels entries and
 * no matchExpressions (upstream's `DeepEqual(selector, &LabelSelector{})`;
 * decoded from protobuf, empty maps and lists are nil, so counting entries
 * is the same test).
 */
export const isEmptyLabelSelector = (
  selector: LabelSelector | undefined
): boolean =>
  selector !== undefined &&
  selector !== null &&
  Object.keys(selector.matchLabels ?? {}).length === 0 &&
  (selector.matchExpressions ?? []).length === 0;

/** LabelSelector expressions accept only the set-based operators. */
const SELECTOR_OPERATORS: readonly string[] = [
  'In',
  'NotIn',
  'Exists',
  'DoesNotExist',
];

/**
 * Returns a matcher for a LabelSelector, as upstream
 * `metav1.LabelSelectorAsSelector(...).Matches`: undefined matches nothing,
 * empty matches everything, requirements are ANDed.
 *
 * @throws InvalidObjectError when a key, value or operator is invalid.
 * @example
 * const matches = parseLabelSelector({ matchLabels: { app: 'web' } });
 * matches({ app: 'web', tier: 'x' }); // true
 */
export function parseLabelSelector(
  selector: LabelSelector | undefined
): (labels: Labels) => boolean {
  if (selector === undefined || selector === null) return () => false;
  if (isEmptyLabelSelector(selector)) return () => true;
  const requirements = [
    ...Object.entries(selector.matchLabels ?? {}).map(([k, v]) =>
      newRequirement(k, 'In', [v])
    ),
    ...(selector.matchExpressions ?? []).map((e) => {
      if (!SELECTOR_OPERATORS.includes(e.operator)) {
        throw new InvalidObjectError(
          `"${e.operator}" is not a valid label selector operator`
        );
      }
      return newRequirement(e.key, e.operator, e.values ?? []);
    }),
  ];
  return (labels) => requirements.every((r) => requirementMatches(r, labels));
}

/**
 * Returns whether the selector matches the labels (see parseLabelSelector).
 *
 * @throws InvalidObjectError when the selector is invalid.
 */
export const labelSelectorMatches = (
  selector: LabelSelector | undefined,
  labels: Labels
): boolean => parseLabelSelector(selector)(labels);
