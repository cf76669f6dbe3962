import { describe, expect, it } from 'vitest';
import {
  computeHash,
  fnv1a32,
  getPatch,
  match,
  maxRevision,
  revisionHash,
  safeEncodeString,
} from '#lib/reconcile/history.js';
import type { ControllerRevision, DaemonSet } from '#lib/reconcile/types.js';
import { newDaemonSet, setTemplate } from '../../../helpers/builders.js';

const revision = (ds: DaemonSet, n: number): ControllerRevision => ({
  metadata: { name: `r${n}`, labels: { 'controller-revision-hash': `h${n}` } },
  data: JSON.parse(getPatch(ds)),
  revision: n,
});

describe('getPatch', () => {
  it('wraps the template with $patch replace in canonical Go JSON', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    if (ds.spec) {
      ds.spec.template = {
        metadata: {
          labels: { b: '2', a: '<&>' },
          creationTimestamp: null as unknown as undefined,
        },
        spec: { containers: [{ name: 'c', image: 'i', resources: {} }] },
      };
    }
    // Act
    const patch = getPatch(ds);
    // Assess
    expect(patch).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"a":"\\u003c\\u0026\\u003e","b":"2"}},"spec":{"containers":[{"image":"i","name":"c","resources":{}}]}}}}'
    );
  });

  it('ignores everything but the template', () => {
    // Prepare
    const a = newDaemonSet('a');
    const b = newDaemonSet('b', 'other');
    if (b.spec) b.spec.minReadySeconds = 10;
    // Act / Assess
    expect(getPatch(a)).toBe(getPatch(b));
  });

  it('renders a DaemonSet without spec as an empty template', () => {
    // Act / Assess
    expect(getPatch({})).toBe('{"spec":{"template":{"$patch":"replace"}}}');
  });
});

describe('match', () => {
  it('matches a revision holding the same template, whatever its key order', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const reordered = JSON.parse(getPatch(ds)) as { spec: object };
    const cr: ControllerRevision = {
      data: { spec: reordered.spec },
      revision: 1,
    };
    // Act / Assess
    expect(match(ds, cr)).toBe(true);
  });

  it('does not match another template or a revision without data', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const cr = revision(ds, 1);
    setTemplate(ds, (t) => {
      t.metadata = { ...t.metadata, annotations: { changed: 'yes' } };
    });
    // Act / Assess
    expect(match(ds, cr)).toBe(false);
    expect(match(ds, { revision: 1 })).toBe(false);
  });
});

describe('computeHash', () => {
  it('is stable for one template and changes with the template', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const copy = structuredClone(ds);
    const first = computeHash(ds);
    // Act
    setTemplate(ds, (t) => {
      t.metadata = { ...t.metadata, labels: { ...t.metadata?.labels, x: 'y' } };
    });
    // Assess
    expect(computeHash(copy)).toBe(first);
    expect(computeHash(ds)).not.toBe(first);
  });

  it('changes with collisionCount, and 0 differs from unset', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const unset = computeHash(ds);
    // Act
    ds.status = { ...ds.status, collisionCount: 0 } as DaemonSet['status'];
    const zero = computeHash(ds);
    ds.status = { ...ds.status, collisionCount: 1 } as DaemonSet['status'];
    const one = computeHash(ds);
    // Assess
    expect(new Set([unset, zero, one]).size).toBe(3);
  });

  it('uses upstream alphabet and length', () => {
    // Act
    const hash = computeHash(newDaemonSet('foo'));
    // Assess
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  });
});

describe('hash building blocks', () => {
  it('computes FNV-1a 32 like Go hash/fnv', () => {
    // Act / Assess
    expect(fnv1a32(Buffer.from(''))).toBe(0x811c9dc5);
    expect(fnv1a32(Buffer.from('a'))).toBe(0xe40c292c);
    expect(fnv1a32(Buffer.from('foobar'))).toBe(0xbf9cf968);
  });

  it('encodes like rand.SafeEncodeString', () => {
    // Act / Assess: '0' is byte 48, 48 % 27 = 21 ⇒ '4'.
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });
});

describe('revision helpers', () => {
  it('finds the highest revision and reads the hash label', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const revisions = [
      revision(ds, 3),
      revision(ds, 7),
      { metadata: {}, revision: 0 },
    ];
    // Act / Assess
    expect(maxRevision(revisions)).toBe(7);
    expect(maxRevision([])).toBe(0);
    expect(revisionHash(revisions[1] as ControllerRevision)).toBe('h7');
    expect(revisionHash({ revision: 1 })).toBeUndefined();
  });
});
