/**
 * The credential shapes the credential adapters (EKS tokens, Secrets
 * Manager) hand to `kubeConfigForCluster`, and the error that says one is
 * missing or unusable.
 */
import { ReconcilerError } from '../../errors.js';

/**
 * How a request to a cluster's API server authenticates: a fixed bearer token
 * (service account), a kubeconfig whose current user carries inline
 * credentials, or a token source called per request (EKS tokens rotate).
 */
export type ClusterCredential =
  | { type: 'token'; token: string }
  | { type: 'kubeconfig'; kubeconfig: string }
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
