import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type {
  ControllerRevision,
  DaemonSet,
} from '#lib/reconcile/k8s/types.js';
import {
  computeHash,
  fnv1a32,
  getPatch,
  match,
  maxRevision,
  revisionHash,
  safeEncodeString,
} from '#lib/reconcile/revision-hash.js';
import { newDaemonSet, setTemplate } from '../../../helpers/builders.js';

/**
 * DaemonSets and upstream `getPatch` bytes recorded from Go by
 * test/fixtures/go-oracle (`ds` mode): `server` is the DaemonSet as an API
 * server serves it (marshalled from the typed struct), `goPatch` what
 * kube-controller-manager stores, `patchFromClient` what `getPatch`'s map
 * half makes of the client JSON without the typed struct.
 */
const fixture = JSON.parse(
  readFileSync(
    new URL(
      '../../../fixtures/daemonset-getpatch-vectors.json',
      import.meta.url
    ),
    'utf8'
  )
) as {
  vectors: {
    name: string;
    client: DaemonSet;
    server: DaemonSet;
    goPatch: string;
    patchFromClient: string;
  }[];
};

const revision = (ds: DaemonSet, n: number): ControllerRevision => ({
  metadata: { name: `r${n}`, labels: { 'controller-revision-hash': `h${n}` } },
  data: JSON.parse(getPatch(ds)),
  revision: n,
});

const GET_PATCH_OF_EMPTY = '{"spec":{"template":{"$patch":"replace"}}}';

describe('getPatch against Go', () => {
  it('has enough recorded DaemonSets', () => {
    // Assess
    expect(fixture.vectors.length).toBeGreaterThanOrEqual(12);
  });

  it.each(fixture.vectors)(
    'equals upstream getPatch for the served DaemonSet: $name',
    ({ server, goPatch }) => {
      // Act
      const patch = getPatch(server);
      // Assess
      expect(patch).toBe(goPatch);
    }
  );

  it.each(fixture.vectors)(
    'equals Go on the very JSON it is given, typed struct or not: $name',
    ({ client, patchFromClient }) => {
      // Act
      const patch = getPatch(client);
      // Assess
      expect(patch).toBe(patchFromClient);
    }
  );
});

describe('getPatch', () => {
  it('wraps the template with $patch replace in canonical Go JSON', () => {
    // Prepare
    const ds: DaemonSet = {
      spec: {
        selector: {},
        template: {
          metadata: { labels: { b: '2', a: '<&>' } },
          spec: { containers: [{ name: 'c', image: 'i', resources: {} }] },
        },
      },
    };
    // Act
    const patch = getPatch(ds);
    // Assess: "$" sorts first, keys sorted at every level, HTML escaped.
    expect(patch).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"a":"\\u003c\\u0026\\u003e","b":"2"}},"spec":{"containers":[{"image":"i","name":"c","resources":{}}]}}}}'
    );
  });

  it('ignores everything but the template', () => {
    // Prepare
    const a = newDaemonSet('a');
    const b = newDaemonSet('b', 'other');
    if (b.spec) b.spec.minReadySeconds = 10;
    b.status = { ...b.status, collisionCount: 3 } as DaemonSet['status'];
    // Act / Assess
    expect(getPatch(a)).toBe(getPatch(b));
  });

  it('renders a DaemonSet without spec or template as an empty template', () => {
    // Act / Assess
    expect(getPatch({})).toBe(GET_PATCH_OF_EMPTY);
    expect(getPatch({ spec: { selector: {} } } as DaemonSet)).toBe(
      GET_PATCH_OF_EMPTY
    );
  });
});

describe('match', () => {
  it.each(fixture.vectors)(
    'matches the revision Go stored for $name',
    ({ server, goPatch }) => {
      // Prepare
      const cr: ControllerRevision = { data: JSON.parse(goPatch), revision: 1 };
      // Act / Assess
      expect(match(server, cr)).toBe(true);
    }
  );

  it('does not match the revision of any other recorded template', () => {
    // Prepare
    const [first, ...others] = fixture.vectors;
    const ds = first?.server as DaemonSet;
    // Act
    const matches = others.map((v) =>
      match(ds, { data: JSON.parse(v.goPatch), revision: 1 })
    );
    // Assess
    expect(matches).not.toContain(true);
  });

  it('matches a revision holding the same template, whatever its key order', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const data = JSON.parse(getPatch(ds)) as {
      spec: { template: Record<string, unknown> };
    };
    const { spec, metadata, ...rest } = data.spec.template;
    const cr: ControllerRevision = {
      data: { spec: { template: { spec, ...rest, metadata } } },
      revision: 1,
    };
    // Act / Assess
    expect(match(ds, cr)).toBe(true);
  });

  it('does not match a changed template or a revision without data', () => {
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

  it('differs for every recorded template', () => {
    // Prepare
    const dss = fixture.vectors.map((v) => ({
      ...v.server,
      status: undefined,
    }));
    // Act
    const hashes = new Set(dss.map(computeHash));
    // Assess
    expect(hashes.size).toBe(fixture.vectors.length);
  });

  it('changes with collisionCount, and 0 differs from unset', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const unset = computeHash(ds);
    // Act
    ds.status = {
      ...ds.status,
      collisionCount: null,
    } as unknown as DaemonSet['status'];
    const nulled = computeHash(ds);
    ds.status = { ...ds.status, collisionCount: 0 } as DaemonSet['status'];
    const zero = computeHash(ds);
    ds.status = { ...ds.status, collisionCount: 1 } as DaemonSet['status'];
    const one = computeHash(ds);
    // Assess
    expect(nulled).toBe(unset);
    expect(new Set([unset, zero, one]).size).toBe(3);
  });

  it('hashes the patch bytes then the count as Go hash/fnv would', () => {
    // Prepare: Go's fnv.New32a over GET_PATCH_OF_EMPTY is 1704211466, and
    // with the 8-byte little-endian collision count 7 appended, rendered by
    // rand.SafeEncodeString, "67486d4c8f" (go-oracle `hash` mode).
    const withCount = { status: { collisionCount: 7 } } as DaemonSet;
    // Act / Assess
    expect(computeHash({})).toBe(safeEncodeString('1704211466'));
    expect(computeHash(withCount)).toBe('67486d4c8f');
  });

  it('uses only upstream alphabet, 1 to 10 characters', () => {
    // Act
    const hashes = fixture.vectors.map((v) => computeHash(v.server));
    // Assess
    for (const hash of hashes) {
      expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    }
  });
});

describe('fnv1a32', () => {
  it.each([
    { input: '', want: 0x811c9dc5 },
    { input: 'a', want: 0xe40c292c },
    { input: 'foobar', want: 0xbf9cf968 },
    { input: '0123456789', want: 4185952242 },
    { input: GET_PATCH_OF_EMPTY, want: 1704211466 },
  ])('hashes "$input" like Go hash/fnv', ({ input, want }) => {
    // Act
    const hash = fnv1a32(Buffer.from(input, 'utf8'));
    // Assess
    expect(hash).toBe(want);
  });

  it('continues from a seed as one hash over both inputs', () => {
    // Prepare
    const count = new Uint8Array([7, 0, 0, 0, 0, 0, 0, 0]);
    // Act
    const hash = fnv1a32(count, fnv1a32(Buffer.from('foobar')));
    // Assess: Go's value for "foobar" followed by those 8 bytes.
    expect(hash).toBe(3386595407);
  });
});

describe('safeEncodeString', () => {
  it.each([
    { input: '', want: '' },
    { input: 'a', want: 'v' },
    { input: 'foobar', want: '4ffwvj' },
    { input: '0123456789', want: '456789bcdf' },
    { input: '4294967295', want: '86f8fbc6f9' },
    { input: 'héllo', want: '6wbbf\0' },
    { input: '😀x', want: 'zq\0\0\0' },
  ])('encodes "$input" like rand.SafeEncodeString', ({ input, want }) => {
    // Act
    const out = safeEncodeString(input);
    // Assess
    expect(out).toBe(want);
  });

  it('treats a lone surrogate as U+FFFD', () => {
    // Act: 0xfffd % 27 = 4 ⇒ "g", then two NULs for the other UTF-8 bytes.
    const out = safeEncodeString('\ud800');
    // Assess
    expect(out).toBe('g\0\0');
  });
});

describe('maxRevision', () => {
  it('returns the highest revision, or 0 for none', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    const revisions = [revision(ds, 3), revision(ds, 7), revision(ds, 0)];
    // Act / Assess
    expect(maxRevision(revisions)).toBe(7);
    expect(maxRevision([])).toBe(0);
  });
});

describe('revisionHash', () => {
  it('reads the controller-revision-hash label when present', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    // Act / Assess
    expect(revisionHash(revision(ds, 7))).toBe('h7');
    expect(revisionHash({ metadata: { labels: {} }, revision: 1 })).toBe(
      undefined
    );
    expect(revisionHash({ metadata: {}, revision: 1 })).toBeUndefined();
    expect(revisionHash({ revision: 1 })).toBeUndefined();
  });
});
