/**
 * Reads one object of a fleet rollout policy document field by field,
 * recording each problem under its field path (`spec.waves[1].bake: …`)
 * so that parsing goes on and the user sees every problem at once.
 */
import { isIntOrPercent } from '../reconcile/k8s/int-or-string.js';
import { isMap } from '../reconcile/k8s/meta.js';
import type { IntOrString } from '../reconcile/k8s/types.js';
import { parseDuration } from './duration.js';

/** A lowercase DNS name (RFC 1123 subdomain). */
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export type Raw = Record<string, unknown>;
/** Reads fields of one object, recording problems under its path. */
export class Reader {
  constructor(
    readonly problems: string[],
    readonly path: string,
    readonly raw: Raw
  ) {}

  #at(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  fail(key: string, problem: string): undefined {
    this.problems.push(`${this.#at(key)}: ${problem}`);
    return undefined;
  }

  /** Records a problem for every key not in `known`. */
  only(known: readonly string[]): void {
    for (const k of Object.keys(this.raw)) {
      if (!known.includes(k))
        this.fail(k, `unknown field (one of ${known.join(', ')})`);
    }
  }

  map(key: string, required = false): Reader | undefined {
    const v = this.raw[key];
    if (v === undefined && !required) return undefined;
    if (!isMap(v))
      return this.fail(key, v === undefined ? 'required' : 'must be an object');
    return new Reader(this.problems, this.#at(key), v);
  }

  string(key: string, fallback?: string): string | undefined {
    const v = this.raw[key] ?? fallback;
    if (typeof v === 'string' && v !== '') return v;
    return this.fail(
      key,
      v === undefined ? 'required' : 'must be a non-empty string'
    );
  }

  name(key: string): string | undefined {
    const v = this.string(key);
    if (v === undefined || (v.length <= 253 && NAME.test(v))) return v;
    return this.fail(key, `"${v}" is not a lowercase DNS name`);
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
    const v = this.raw[key] ?? fallback;
    if ((allowed as readonly unknown[]).includes(v)) return v as T;
    this.fail(key, `must be one of ${allowed.join(', ')}`);
    return fallback;
  }

  count(key: string, fallback: number): number {
    const v = this.raw[key] ?? fallback;
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
    this.fail(key, 'must be a whole number ≥ 0');
    return fallback;
  }

  intOrPercent(key: string, fallback: IntOrString): IntOrString {
    const v = this.raw[key] ?? fallback;
    if (isIntOrPercent(v)) return v;
    this.fail(
      key,
      `must be a whole number or a percentage such as "25%", not ${JSON.stringify(v)}`
    );
    return fallback;
  }

  duration(key: string, fallback: string): number {
    const v = this.raw[key] ?? fallback;
    const ms = typeof v === 'string' ? parseDuration(v) : undefined;
    if (ms !== undefined) return ms;
    this.fail(
      key,
      `must be a duration such as "90s", "10m" or "1h30m", not ${JSON.stringify(v)}`
    );
    return 0;
  }

  list(key: string): unknown[] {
    const v = this.raw[key];
    if (Array.isArray(v)) return v;
    this.fail(key, v === undefined ? 'required' : 'must be a list');
    return [];
  }

  element(key: string, i: number, v: unknown): Reader | undefined {
    const at = `${this.#at(key)}[${i}]`;
    if (isMap(v)) return new Reader(this.problems, at, v);
    this.problems.push(`${at}: must be an object`);
    return undefined;
  }
}
