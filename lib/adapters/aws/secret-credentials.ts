/**
 * Cluster credentials kept in AWS Secrets Manager: a secret's JSON is either
 * `{ "token": "<service-account token>" }` or `{ "kubeconfig": "<yaml>" }`,
 * with `"server"` and `"caData"` naming the API server it is for (a
 * kubeconfig's current cluster may name them instead).
 * Each secret is read once per cold start and kept in memory; a caller that
 * gets Unauthorized may `invalidate` it to read it again.
 */
import {
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { isObject } from '../../cluster/record-fields.js';
import { ReconcilerError } from '../../errors.js';
import {
  parseKubeconfigTarget,
  parseKubeconfigUser,
} from '../kube/client/cluster-access.js';
import {
  type ClusterCredential,
  ClusterCredentialError,
  type CredentialTarget,
} from '../kube/cluster-credential.js';

/** A bearer token: visible ASCII only, so it cannot split a header. */
const TOKEN = /^[\x21-\x7e]+$/;

/** The fields that name the API server a secret's credential is for. */
const TARGET_FIELDS = ['server', 'caData'];

/**
 * Returns the credential held by a secret's text; throws a
 * ClusterCredentialError that names what is wrong but never quotes the text
 * (and has no cause that could).
 */
export const parseSecretCredential = (
  secretArn: string,
  text: string
): ClusterCredential => {
  const fail = (problem: string) =>
    new ClusterCredentialError(`secret ${secretArn}: ${problem}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // JSON.parse quotes the text in its message: drop it and its cause.
    throw fail('is not JSON');
  }
  const shape =
    'must be a JSON object with exactly one of the string fields token, kubeconfig (and the server and caData it is for)';
  if (!isObject(doc)) throw fail(shape);
  const keys = Object.keys(doc).filter((k) => !TARGET_FIELDS.includes(k));
  if (keys.length !== 1) throw fail(shape);
  const { server, caData } = doc;
  let target: CredentialTarget | undefined;
  if (server !== undefined || caData !== undefined) {
    if (typeof server !== 'string' || typeof caData !== 'string') {
      throw fail('server and caData go together, as strings');
    }
    target = { server, caData };
  }
  if (typeof doc.token === 'string') {
    if (!TOKEN.test(doc.token)) {
      throw fail('token is empty or has spaces or control characters');
    }
    return { type: 'token', token: doc.token, ...(target && { target }) };
  }
  if (typeof doc.kubeconfig === 'string') {
    try {
      parseKubeconfigUser(doc.kubeconfig);
    } catch (e) {
      if (e instanceof ClusterCredentialError) throw fail(e.message);
      throw fail('kubeconfig could not be read');
    }
    target ??= parseKubeconfigTarget(doc.kubeconfig);
    return {
      type: 'kubeconfig',
      kubeconfig: doc.kubeconfig,
      ...(target && { target }),
    };
  }
  throw fail(shape);
};

/** Reads cluster credentials from Secrets Manager, one read per secret. */
export class SecretCredentials {
  readonly #client: SecretsManagerClient;
  readonly #cache = new Map<string, Promise<ClusterCredential>>();

  constructor({ client }: { client: SecretsManagerClient }) {
    this.#client = client;
  }

  /**
   * Returns the credential in `secretArn`, read on first use and then served
   * from memory; a failed read is not kept. Concurrent callers share a read.
   *
   * @example
   * const credential = await secrets.credential(record.auth.secretArn);
   */
  credential(secretArn: string): Promise<ClusterCredential> {
    let entry = this.#cache.get(secretArn);
    if (entry === undefined) {
      entry = this.#read(secretArn);
      this.#cache.set(secretArn, entry);
      entry.catch(() => {
        if (this.#cache.get(secretArn) === entry) {
          this.#cache.delete(secretArn);
        }
      });
    }
    return entry;
  }

  /** Forgets the kept credential of `secretArn` (e.g. after Unauthorized). */
  invalidate(secretArn: string): void {
    this.#cache.delete(secretArn);
  }

  async #read(secretArn: string): Promise<ClusterCredential> {
    let out: GetSecretValueCommandOutput;
    try {
      out = await this.#client.send(
        new GetSecretValueCommand({ SecretId: secretArn })
      );
    } catch (cause) {
      throw new ReconcilerError(`read cluster credential ${secretArn}`, {
        cause,
      });
    }
    const text =
      out.SecretString ??
      (out.SecretBinary
        ? Buffer.from(out.SecretBinary).toString('utf8')
        : undefined);
    if (text === undefined) {
      throw new ClusterCredentialError(`secret ${secretArn}: has no value`);
    }
    return parseSecretCredential(secretArn, text);
  }
}
