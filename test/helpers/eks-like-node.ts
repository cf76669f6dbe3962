/**
 * A synthetic Node as an EKS cluster's API server returns it in a list:
 * about 17 KB of JSON, most of it status (50 images, conditions, node info)
 * and managed fields — what a relist reads and placement never does.
 */
import type { Node } from '#lib/reconcile/k8s/types.js';

const condition = (type: string, status: string) => ({
  type,
  status,
  lastHeartbeatTime: '2026-12-01T10:00:00Z',
  lastTransitionTime: '2026-11-30T08:00:00Z',
  reason: `Kubelet${type}`,
  message: `kubelet reports ${type} is ${status} on this node`,
});

/** Returns the `i`-th node of an EKS-like cluster (rv `1000 + i`). */
export const eksLikeNode = (i: number): Node => {
  const name = `ip-10-0-${i >> 8}-${i & 255}.eu-west-1.compute.internal`;
  return {
    metadata: {
      name,
      uid: `8d2f3c1a-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-11-30T08:00:00Z',
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/instance-type': 'm5.xlarge',
        'beta.kubernetes.io/os': 'linux',
        'eks.amazonaws.com/capacityType': 'ON_DEMAND',
        'eks.amazonaws.com/nodegroup': 'general-purpose',
        'eks.amazonaws.com/nodegroup-image': 'ami-0abcdef1234567890',
        'eks.amazonaws.com/sourceLaunchTemplateId': 'lt-0123456789abcdef0',
        'eks.amazonaws.com/sourceLaunchTemplateVersion': '3',
        'failure-domain.beta.kubernetes.io/region': 'eu-west-1',
        'failure-domain.beta.kubernetes.io/zone': `eu-west-1${'abc'[i % 3]}`,
        'k8s.io/cloud-provider-aws': '5f2e9c7d1b3a4e6f8a0c2d4e6f8a0b1c',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'topology.ebs.csi.aws.com/zone': `eu-west-1${'abc'[i % 3]}`,
        'topology.k8s.aws/zone-id': `euw1-az${(i % 3) + 1}`,
        'topology.kubernetes.io/region': 'eu-west-1',
        'topology.kubernetes.io/zone': `eu-west-1${'abc'[i % 3]}`,
      },
      annotations: {
        'alpha.kubernetes.io/provided-node-ip': `10.0.${i >> 8}.${i & 255}`,
        'csi.volume.kubernetes.io/nodeid': `{"ebs.csi.aws.com":"i-0${i}abcdef"}`,
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
      managedFields: ['kubelet', 'kube-controller-manager', 'aws-node'].map(
        (manager) => ({
          manager,
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-12-01T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:annotations': {
                '.': {},
                'f:node.alpha.kubernetes.io/ttl': {},
              },
              'f:labels': Object.fromEntries(
                Array.from({ length: 12 }, (_, k) => [`f:label-${k}`, {}])
              ),
            },
            'f:status': {
              'f:conditions': Object.fromEntries(
                ['DiskPressure', 'MemoryPressure', 'PIDPressure', 'Ready'].map(
                  (t) => [
                    `k:{"type":"${t}"}`,
                    { 'f:lastHeartbeatTime': {}, 'f:status': {} },
                  ]
                )
              ),
            },
          },
        })
      ),
    },
    spec: {
      providerID: `aws:///eu-west-1a/i-0${i}abcdef`,
      ...(i % 10 === 0
        ? { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }
        : {}),
    },
    status: {
      capacity: { cpu: '4', memory: '15896988Ki', pods: '58' },
      allocatable: { cpu: '3920m', memory: '14880156Ki', pods: '58' },
      conditions: [
        condition('MemoryPressure', 'False'),
        condition('DiskPressure', 'False'),
        condition('PIDPressure', 'False'),
        condition('Ready', 'True'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.0.${i >> 8}.${i & 255}` },
        { type: 'Hostname', address: name },
        { type: 'InternalDNS', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'ec2a1b2c3d4e5f60718293a4b5c6d7e8',
        systemUUID: 'ec2a1b2c-3d4e-5f60-7182-93a4b5c6d7e8',
        bootID: `5b7c9d1e-2f3a-4b5c-6d7e-${String(i).padStart(12, '0')}`,
        kernelVersion: '6.1.112-124.190.amzn2023.x86_64',
        osImage: 'Amazon Linux 2023.6.20241031',
        containerRuntimeVersion: 'containerd://1.7.23',
        kubeletVersion: 'v1.31.2-eks-7f9249a',
        kubeProxyVersion: 'v1.31.2-eks-7f9249a',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: Array.from({ length: 50 }, (_, k) => ({
        names: [
          `602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/image-${k}@sha256:${'0123456789abcdef'.repeat(4)}`,
          `602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/image-${k}:v1.${k}.0-eksbuild.1`,
        ],
        sizeBytes: 10_000_000 + k * 1_234_567,
      })),
    },
  } as Node;
};
