/**
 * Twelve varied DaemonSet pod templates for the byte-compatibility oracle:
 * unicode, `<>&`, numbers, empty maps and lists, resources, probes, volumes.
 */
import type { PodTemplateSpec } from '#lib/reconcile/k8s/types.js';

const base = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { labels: { app: name } },
  spec: {
    containers: [{ name: 'main', image: `registry.local/${name}:1` }],
    ...extra,
  },
});

export const oracleTemplates: { name: string; template: PodTemplateSpec }[] = [
  { name: 'plain', template: base('plain') as PodTemplateSpec },
  {
    name: 'unicode',
    template: {
      metadata: {
        labels: { app: 'unicode' },
        annotations: { note: 'Grüße 你好 😀 \u2028 end' },
      },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'img',
            env: [{ name: 'GREETING', value: 'héllo wörld ✓' }],
          },
        ],
      },
    },
  },
  {
    name: 'html',
    template: {
      metadata: {
        labels: { app: 'html' },
        annotations: { expr: 'a<b && c>d' },
      },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'img',
            args: ['--filter=<x>&<y>', 'quote"d and back\\slash'],
          },
        ],
      },
    },
  },
  {
    name: 'numbers',
    template: {
      metadata: { labels: { app: 'numbers' } },
      spec: {
        terminationGracePeriodSeconds: 7,
        activeDeadlineSeconds: undefined,
        priority: 0,
        containers: [
          {
            name: 'main',
            image: 'img',
            ports: [{ containerPort: 8080, hostPort: 18080, protocol: 'TCP' }],
          },
        ],
      },
    },
  },
  {
    name: 'empty',
    template: {
      metadata: { labels: { app: 'empty' }, annotations: {} },
      spec: {
        containers: [{ name: 'main', image: 'img', args: [], env: [] }],
        nodeSelector: {},
        tolerations: [],
      },
    },
  },
  {
    name: 'resources',
    template: {
      metadata: { labels: { app: 'resources' } },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'img',
            resources: {
              requests: { cpu: '100m', memory: '64Mi' },
              limits: { cpu: '0.5', memory: '1G' },
            },
          },
        ],
      },
    },
  },
  {
    name: 'probes',
    template: {
      metadata: { labels: { app: 'probes' } },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'img',
            readinessProbe: {
              httpGet: { path: '/ready?x=1&y=2', port: 8080 },
              periodSeconds: 3,
              failureThreshold: 2,
            },
            livenessProbe: {
              exec: { command: ['sh', '-c', 'test -f /tmp/ok'] },
              initialDelaySeconds: 5,
            },
          },
        ],
      },
    },
  },
  {
    name: 'volumes',
    template: {
      metadata: { labels: { app: 'volumes' } },
      spec: {
        volumes: [
          { name: 'host', hostPath: { path: '/var/log', type: 'Directory' } },
          { name: 'scratch', emptyDir: {} },
          {
            name: 'cfg',
            configMap: {
              name: 'cfg',
              defaultMode: 420,
              items: [{ key: 'a', path: 'a.conf' }],
            },
          },
        ],
        containers: [
          {
            name: 'main',
            image: 'img',
            volumeMounts: [
              { name: 'host', mountPath: '/host/log', readOnly: true },
            ],
          },
        ],
      },
    },
  },
  {
    name: 'tolerations',
    template: {
      metadata: { labels: { app: 'tolerations' } },
      spec: {
        tolerations: [
          { operator: 'Exists' },
          {
            key: 'node.kubernetes.io/not-ready',
            operator: 'Exists',
            effect: 'NoExecute',
            tolerationSeconds: 300,
          },
        ],
        containers: [{ name: 'main', image: 'img' }],
      },
    },
  },
  {
    name: 'affinity',
    template: {
      metadata: { labels: { app: 'affinity' } },
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    {
                      key: 'kubernetes.io/os',
                      operator: 'In',
                      values: ['linux'],
                    },
                  ],
                },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 10,
                preference: {
                  matchExpressions: [{ key: 'zone', operator: 'Exists' }],
                },
              },
            ],
          },
        },
        containers: [{ name: 'main', image: 'img' }],
      },
    },
  },
  {
    name: 'security',
    template: {
      metadata: { labels: { app: 'security' } },
      spec: {
        hostNetwork: true,
        hostPID: true,
        securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000 },
        containers: [
          {
            name: 'main',
            image: 'img',
            securityContext: {
              privileged: true,
              capabilities: { add: ['NET_ADMIN'], drop: [] },
            },
          },
        ],
      },
    },
  },
  {
    name: 'init',
    template: {
      metadata: {
        labels: { app: 'init', tier: 'node' },
        annotations: {
          'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z',
        },
      },
      spec: {
        initContainers: [
          {
            name: 'setup',
            image: 'busybox',
            command: ['sh', '-c', 'echo 1.5e-7 > /x'],
          },
        ],
        containers: [
          { name: 'main', image: 'img' },
          { name: 'sidecar', image: 'img2', stdin: false },
        ],
        dnsPolicy: 'ClusterFirstWithHostNet',
      },
    },
  },
];
