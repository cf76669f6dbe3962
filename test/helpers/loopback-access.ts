/** ClusterAccess to an HTTPS server on loopback whose certificate is `cert`. */
import type { ClusterAccess } from '#lib/adapters/kube/client/cluster-access.js';

/** Returns access to `https://127.0.0.1:<port>`, trusting only `cert`. */
export const loopbackAccess = (port: number, cert: string): ClusterAccess => ({
  getCurrentCluster: () => ({
    name: 'loopback',
    server: `https://127.0.0.1:${port}`,
  }),
  applyToHTTPSOptions: async (opts) => {
    opts.ca = cert;
  },
});
