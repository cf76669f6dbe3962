/**
 * The kube-state-metrics configuration for the own kind names the CRD's
 * group, version and kind, and every gauge reads a field the CRD's schema
 * defines, so no series is silently empty.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './package-template.js';

interface Schema {
  properties?: Record<string, Schema>;
}
interface Crd {
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; schema: { openAPIV3Schema: Schema } }[];
  };
}
interface KsmConfig {
  spec: {
    resources: {
      groupVersionKind: { group: string; version: string; kind: string };
      metrics: { name: string; each: { gauge: { path: string[] } } }[];
    }[];
  };
}

const read = <T>(file: string): T =>
  load(readFileSync(join(REPO_ROOT, 'infra/kubernetes', file), 'utf8')) as T;

/** Returns whether `path` names a field of `schema` (metadata is free-form). */
const definesPath = (schema: Schema, path: readonly string[]): boolean => {
  const [head, ...rest] = path;
  if (head === undefined) return true;
  const next = schema.properties?.[head];
  if (next === undefined) return false;
  return head === 'metadata' || definesPath(next, rest);
};

describe('kube-state-metrics configuration of the own kind', () => {
  const crd = read<Crd>('advanced-daemonset-crd.yaml');
  const config = read<KsmConfig>('kube-state-metrics-advanced-daemonset.yaml');
  const [resource] = config.spec.resources;

  it('names the CRD served version and kind', () => {
    // Assess
    expect(resource?.groupVersionKind).toEqual({
      group: crd.spec.group,
      version: crd.spec.versions[0]?.name,
      kind: crd.spec.names.kind,
    });
  });

  it('reads only fields the CRD defines', () => {
    // Prepare
    const schema = crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};

    // Act
    const undefinedPaths = (resource?.metrics ?? [])
      .map((m) => m.each.gauge.path)
      .filter((path) => !definesPath(schema, path));

    // Assess
    expect(resource?.metrics.length).toBe(9);
    expect(undefinedPaths).toEqual([]);
    expect(definesPath(schema, ['status', 'noSuchCount'])).toBe(false);
  });
});
