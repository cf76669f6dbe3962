/**
 * `kubectl dsr get -o json|yaml|name`: kubectl's printers — sorted keys,
 * four-space JSON, YAML with unindented sequences, a `List` around many,
 * and no managedFields.
 */
import { describe, expect, it } from 'vitest';
import { printList, printObject } from '#lib/cli/plugin/get-output.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';

const ds = {
  kind: 'AdvancedDaemonSet',
  apiVersion: 'apps.dsr.dev/v1beta1',
  metadata: {
    name: 'agent',
    namespace: 'ns',
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: {
    template: { spec: { containers: [{ name: 'c', image: 'agent:1' }] } },
  },
} as unknown as DaemonSet;

describe('get printers', () => {
  it('prints one object as JSON with sorted keys and four spaces', () => {
    // Act / Assess
    expect(printObject(ds, 'json')).toBe(
      `{
    "apiVersion": "apps.dsr.dev/v1beta1",
    "kind": "AdvancedDaemonSet",
    "metadata": {
        "name": "agent",
        "namespace": "ns"
    },
    "spec": {
        "template": {
            "spec": {
                "containers": [
                    {
                        "image": "agent:1",
                        "name": "c"
                    }
                ]
            }
        }
    }
}
`
    );
  });

  it('prints a list as a YAML List, and names as RESOURCE/NAME', () => {
    // Act / Assess
    expect(printList([ds], 'yaml')).toBe(
      `apiVersion: v1
items:
- apiVersion: apps.dsr.dev/v1beta1
  kind: AdvancedDaemonSet
  metadata:
    name: agent
    namespace: ns
  spec:
    template:
      spec:
        containers:
        - image: agent:1
          name: c
kind: List
metadata:
  resourceVersion: ""
`
    );
    expect(printObject(ds, 'name')).toBe(
      'advanceddaemonset.apps.dsr.dev/agent\n'
    );
  });
});
