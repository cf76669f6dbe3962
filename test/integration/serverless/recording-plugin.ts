/**
 * The kubectl plugin's dependencies over a KubeHttp that records every
 * request it sends, so a test counts the plugin's writes on the real API
 * server (and sees whether each carried dryRun=All).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import type {
  Method,
  RequestOptions,
} from '#lib/adapters/kube/client/kube-http-types.js';
import { KubeAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';

/** One request the plugin sent. */
export interface SentRequest {
  method: Method;
  path: string;
  dryRun?: string;
}

/** Returns plugin deps on `kubeconfigPath` and the log of what they sent. */
export const recordingPlugin = async (kubeconfigPath: string) => {
  const sent: SentRequest[] = [];
  const saved = await mkdtemp(path.join(tmpdir(), 'dsr-migrate-'));
  class RecordingHttp extends KubeHttp {
    override requestText(
      what: string,
      method: Method,
      p: string,
      options: RequestOptions = {}
    ): Promise<string> {
      // A DELETE carries its dry run in the DeleteOptions body.
      const options_ =
        method === 'DELETE' && options.body
          ? (JSON.parse(options.body) as { dryRun?: string[] })
          : {};
      const dryRun = options.query?.dryRun ?? options_.dryRun?.join(',');
      sent.push({
        method,
        path: p,
        ...(dryRun === undefined ? {} : { dryRun: String(dryRun) }),
      });
      return super.requestText(what, method, p, options);
    }
  }
  const deps: PluginDeps = {
    open: () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(kubeconfigPath);
      const http = new RecordingHttp({ kubeConfig });
      return {
        api: new KubeAdvancedDaemonSets({ http }),
        namespace: 'default',
      };
    },
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    write: () => undefined,
    save: async (name, text) => {
      const file = path.join(saved, name);
      await writeFile(file, text);
      return file;
    },
  };
  return {
    deps,
    sent,
    /** The writes sent since `from` (an index into `sent`). */
    writesSince: (from: number) =>
      sent.slice(from).filter((r) => r.method !== 'GET'),
    savedDir: saved,
  };
};
