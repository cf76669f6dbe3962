/**
 * AWS credentials as the SDK's providers return them, and a SHA-256 for
 * `@smithy/signature-v4` built on node:crypto.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/** A set of AWS credentials (the SDK's `AwsCredentialIdentity`). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When the credentials stop working; undefined when unknown. */
  expiration?: Date;
}

/**
 * Returns credentials, refreshing them as needed; an SDK client's
 * `config.credentials` is one (the default provider chain).
 */
export type AwsCredentialProvider = () => Promise<AwsCredentials>;

type SourceData = string | ArrayBuffer | ArrayBufferView;

const toBytes = (data: SourceData): Buffer => {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) {
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  return Buffer.from(data);
};

/**
 * Hashes with SHA-256, or HMAC-SHA-256 when given a secret: the
 * `HashConstructor` shape `@smithy/signature-v4` signs with.
 */
export class NodeSha256 {
  readonly #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#hash =
      secret === undefined
        ? createHash('sha256')
        : createHmac('sha256', toBytes(secret));
  }

  /** Adds data to the digest. */
  update(data: SourceData): void {
    this.#hash.update(toBytes(data));
  }

  /** Returns the digest of everything added. */
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
}
