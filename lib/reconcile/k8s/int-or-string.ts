/** Ports apimachinery's `intstr.GetScaledValueFromIntOrPercent`. */
import { InvalidObjectError } from '../../errors.js';
import type { IntOrString } from './types.js';

/**
 * Returns an int-or-percent scaled against `total`, the percentage rounded
 * up or down, as `intstr.GetScaledValueFromIntOrPercent(v, total, roundUp)`.
 */
export const getScaledValueFromIntOrPercent = (
  value: IntOrString | undefined,
  total: number,
  roundUp = true
): number => {
  if (value === undefined || value === null) {
    throw new InvalidObjectError('nil value for IntOrString');
  }
  if (typeof value === 'number') return value;
  const match = /^(-?\d+)%$/.exec(value);
  if (match === null) {
    throw new InvalidObjectError(
      `invalid value for IntOrString: invalid type: string is not a percentage: ${value}`
    );
  }
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
};

/**
 * Returns whether `v` is a rollout control's value: a whole number ≥ 0, or
 * a percentage string ≥ "0%" and at most `maxPercent`.
 */
export const isIntOrPercent = (
  v: unknown,
  maxPercent = Number.POSITIVE_INFINITY
): v is IntOrString => {
  if (typeof v !== 'number' && typeof v !== 'string') return false;
  try {
    const scaled = getScaledValueFromIntOrPercent(v, 100);
    return (
      Number.isInteger(scaled) &&
      scaled >= 0 &&
      (typeof v === 'number' || scaled <= maxPercent)
    );
  } catch {
    return false;
  }
};
