/**
 * Ports apimachinery's label selection as the DaemonSet controller uses it:
 * `metav1.LabelSelectorAsSelector`, `labels.NewRequirement` validation and
 * `Requirement.Matches` (also used for node affinity's `matchExpressions`,
 * which add `Gt`/`Lt`).
 *
 * Invariants: an undefined selector matches nothing, an empty one
 * everything; an invalid requirement is an error, never a silent match.
 */
import { InvalidObjectError } from '../errors.js';
import type { LabelSelector } from './types.js';

export type Labels = Readonly<Record<string, string>> | undefined;

/** One parsed requirement: key, operator, values. */
export interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values: readonly string[];
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const INTEGER = /^[+-]?\d+$/;

const isQualifiedName = (key: string): boolean => {
  const slash = key.lastIndexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  if (prefix !== undefined) {
    if (prefix.length === 0 || prefix.length > 253) return false;
    if (!DNS_SUBDOMAIN.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && NAME.test(name);
};

const isLabelValue = (v: string): boolean =>
  v === '' || (v.length <= 63 && NAME.test(v));

/**
 * Returns a validated requirement (upstream `labels.NewRequirement`); throws
 * InvalidObjectError with upstream's reason otherwise.
 */
export const newRequirement = (
  key: string,
  operator: string,
  values: readonly string[] = []
): Requirement => {
  if (!isQualifiedName(key)) {
    throw new InvalidObjectError(`invalid label key "${key}"`);
  }
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        throw new InvalidObjectError(
          `for '${operator}' operator, values set can't be empty`
        );
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) {
        throw new InvalidObjectError(
          `values set must be empty for exists and does not exist`
        );
      }
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1 || !values.every((v) => INTEGER.test(v))) {
        throw new InvalidObjectError(
          `for '${operator}' operator, exactly one integer value is required`
        );
      }
      break;
    default:
      throw new InvalidObjectError(`"${operator}" is not a valid operator`);
  }
  for (const v of values) {
    if (!isLabelValue(v)) {
      throw new InvalidObjectError(`invalid label value "${v}"`);
    }
  }
  return { key, operator, values };
};

/** Returns whether the labels satisfy one requirement (`Requirement.Matches`). */
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
      if (value === undefined || !INTEGER.test(value)) return false;
      const actual = BigInt(value);
      const bound = BigInt(r.values.join(''));
      return r.operator === 'Gt' ? actual > bound : actual < bound;
    }
  }
};

/** Returns whether the selector has neither matchLabels nor expressions. */
export const isEmptyLabelSelector = (
  selector: LabelSelector | undefined
): boolean =>
  selector !== undefined &&
  Object.keys(selector.matchLabels ?? {}).length === 0 &&
  (selector.matchExpressions ?? []).length === 0;

const SELECTOR_OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * Returns a matcher for a LabelSelector (`LabelSelectorAsSelector`):
 * undefined matches nothing, empty matches everything, invalid throws.
 */
export const parseLabelSelector = (
  selector: LabelSelector | undefined
): ((labels: Labels) => boolean) => {
  if (selector === undefined || selector === null) return () => false;
  if (isEmptyLabelSelector(selector)) return () => true;
  const requirements = [
    ...Object.entries(selector.matchLabels ?? {}).map(([k, v]) =>
      newRequirement(k, 'In', [v])
    ),
    ...(selector.matchExpressions ?? []).map((e) => {
      if (!SELECTOR_OPERATORS.has(e.operator)) {
        throw new InvalidObjectError(
          `"${e.operator}" is not a valid label selector operator`
        );
      }
      return newRequirement(e.key, e.operator, e.values ?? []);
    }),
  ];
  return (labels) => requirements.every((r) => requirementMatches(r, labels));
};

/** Returns whether the selector matches the labels. */
export const labelSelectorMatches = (
  selector: LabelSelector | undefined,
  labels: Labels
): boolean => parseLabelSelector(selector)(labels);
