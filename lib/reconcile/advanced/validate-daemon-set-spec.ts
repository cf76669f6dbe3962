/**
 * The controller-side half of Kruise's validating webhook
 * (pkg/webhook/daemonset/validating `validateDaemonSetSpecV1beta1`): the
 * rules of spec/kruise-ads.md §1.4 that the CRD's schema and CEL cannot
 * express. With no webhook in the cluster, an object that breaks them is
 * stored anyway; the reconciler then leaves it alone and reports an
 * `InvalidSpec` condition (lib/reconcile/status.ts).
 *
 * Checked here: label selector syntax of `spec.selector` and
 * `updateStrategy.rollingUpdate.selector` (V1: keys, values, operators and
 * their value counts); the template's label keys and values and its
 * containers and their names (the part of V4, upstream
 * `ValidatePodTemplateSpec`, without which no pod can be created); the
 * shape of the placement fields, which placement reads. Everything else of V4 is left to the API
 * server's pod validation, whose refusals show as FailedCreate events.
 *
 * Invariants: an object the API server accepted as apps/v1 passes (upstream
 * validates all of this and more), so the check serves both kinds.
 */
import { InvalidObjectError } from '../../errors.js';
import { newRequirement, parseLabelSelector } from '../k8s/label-selector.js';
import { isMap } from '../k8s/meta.js';
import type { DaemonSet, LabelSelector } from '../k8s/types.js';

/** `validation.DNS1123LabelFmt`, the container name format. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_LABEL_MAX = 63;

/**
 * Returns `check`'s InvalidObjectError as a field error at `path`; any
 * other error is a bug here, not the user's, and propagates.
 */
const errorsAt = (path: string, check: () => unknown): string[] => {
  try {
    check();
    return [];
  } catch (e) {
    if (!(e instanceof InvalidObjectError)) throw e;
    return [`${path}: Invalid value: ${e.message}`];
  }
};

const selectorError = (
  path: string,
  selector: LabelSelector | undefined
): string[] => errorsAt(path, () => parseLabelSelector(selector));

const templateLabelErrors = (ds: DaemonSet): string[] =>
  Object.entries(ds.spec?.template?.metadata?.labels ?? {}).flatMap(([k, v]) =>
    errorsAt('spec.template.metadata.labels', () =>
      newRequirement(k, 'In', [v])
    )
  );

const containerErrors = (ds: DaemonSet): string[] => {
  const containers = ds.spec?.template?.spec?.containers;
  const path = 'spec.template.spec.containers';
  if (!Array.isArray(containers) || containers.length === 0) {
    return [`${path}: Required value`];
  }
  const seen = new Set<string>();
  return containers.flatMap((c, i) => {
    const errors: string[] = [];
    const name = typeof c?.name === 'string' ? c.name : '';
    if (name.length > DNS_LABEL_MAX || !DNS_LABEL.test(name)) {
      errors.push(
        `${path}[${i}].name: Invalid value: "${name}": must be a lowercase RFC 1123 label`
      );
    } else if (seen.has(name)) {
      errors.push(`${path}[${i}].name: Duplicate value: "${name}"`);
    }
    seen.add(name);
    return errors;
  });
};

/**
 * Returns the shape errors of what placement reads of the template (an
 * object stored before the CRD typed them): `nodeSelector` a map of
 * strings, `tolerations` a list of objects, required node affinity a list
 * of terms; without this the sync's placement would throw on them.
 */
const placementErrors = (ds: DaemonSet): string[] => {
  const spec = (ds.spec?.template?.spec ?? {}) as Record<string, unknown>;
  const path = 'spec.template.spec';
  const { nodeSelector, tolerations, affinity } = spec;
  const required = isMap(affinity)
    ? (affinity.nodeAffinity as Record<string, unknown> | undefined)
        ?.requiredDuringSchedulingIgnoredDuringExecution
    : undefined;
  const terms = isMap(required) ? required.nodeSelectorTerms : required;
  return [
    nodeSelector != null &&
    !(
      isMap(nodeSelector) &&
      Object.values(nodeSelector).every((v) => typeof v === 'string')
    )
      ? `${path}.nodeSelector: Invalid value: must be a map of strings`
      : '',
    tolerations != null &&
    !(Array.isArray(tolerations) && tolerations.every(isMap))
      ? `${path}.tolerations: Invalid value: must be a list of tolerations`
      : '',
    terms != null && !(Array.isArray(terms) && terms.every(isMap))
      ? `${path}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Invalid value: must be a list of node selector terms`
      : '',
  ].filter((e) => e !== '');
};

/**
 * Returns what is wrong with the DaemonSet's spec, one message per error
 * as `field.path: reason`, in field order; empty when it can be reconciled.
 *
 * @example
 * validateDaemonSetSpec(ds);
 * // ['spec.updateStrategy.rollingUpdate.selector: Invalid value: …']
 */
export const validateDaemonSetSpec = (ds: DaemonSet): string[] => [
  ...selectorError('spec.selector', ds.spec?.selector),
  ...templateLabelErrors(ds),
  ...containerErrors(ds),
  ...placementErrors(ds),
  ...selectorError(
    'spec.updateStrategy.rollingUpdate.selector',
    ds.spec?.updateStrategy?.rollingUpdate?.selector
  ),
];
