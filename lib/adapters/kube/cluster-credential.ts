/**
 * The credential shapes the credential adapters (EKS tokens, Secrets
 * Manager) hand to `kubeConfigForCluster`, and the error that says one is
 * missing or unusable.
 */
import { ReconcilerError } from '../../errors.js';

/**
 * The API server a stored credential is for, as its secret names it: a
 * record whose endpoint or CA differs is refused before the credential is
 * sent, so a write to the table cannot redirect it.
 */
export interface CredentialTarget {
  server: string;
  /** Base64 of the CA's PEM, as in a record or a kubeconfig. */
  caData: string;
}

/**
 * How a request to a cluster's API server authenticates: a fixed bearer token
 * (service account), a kubeconfig whose current user carries inline
 * credentials, or a token source called per request (EKS tokens rotate).
 * A credential read from a secret carries the target the secret names.
 */
export type ClusterCredential =
  | { type: 'token'; token: string; target?: CredentialTarget }
  | { type: 'kubeconfig'; kubeconfig: string; target?: CredentialTarget }
  | { type: 'token-source'; token: () => Promise<string> };

/**
 * A cluster credential is missing or unusable. Its message never carries the
 * credential's text, and it never has a `cause` that could.
 */
export class ClusterCredentialError extends ReconcilerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ClusterCredentialError';
  }
}
