/**
 * What the reconciler must be allowed to do in a cluster, as the
 * SelfSubjectAccessReviews `clusters check` sends: the rules of
 * infra/kubernetes/rbac.yaml (or, for the own kind,
 * rbac-advanced-daemonset.yaml), one review per group, resource and verb. The
 * rules are kept here as data (the bundled CLI has no repository to read);
 * a unit test holds them equal to the YAML.
 */

/** One rule of a ClusterRole, as in rbac.authorization.k8s.io/v1. */
export interface PolicyRule {
  apiGroups: readonly string[];
  resources: readonly string[];
  verbs: readonly string[];
}

/** One permission, as a SelfSubjectAccessReview's resourceAttributes. */
export interface AccessCheck {
  verb: string;
  /** The API group; '' is the core group. */
  group: string;
  resource: string;
  subresource?: string;
}

/** The rules of the ClusterRole in infra/kubernetes/rbac.yaml. */
export const RECONCILER_RULES: readonly PolicyRule[] = [
  {
    apiGroups: ['extensions', 'apps'],
    resources: ['daemonsets'],
    verbs: ['get', 'list', 'watch'],
  },
  {
    apiGroups: ['extensions', 'apps'],
    resources: ['daemonsets/status'],
    verbs: ['update'],
  },
  {
    apiGroups: ['extensions', 'apps'],
    resources: ['daemonsets/finalizers'],
    verbs: ['update'],
  },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list', 'watch', 'create', 'delete', 'patch'],
  },
  { apiGroups: [''], resources: ['pods/binding'], verbs: ['create'] },
  {
    apiGroups: ['apps'],
    resources: ['controllerrevisions'],
    verbs: ['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'],
  },
  {
    apiGroups: ['', 'events.k8s.io'],
    resources: ['events'],
    verbs: ['create', 'update', 'patch'],
  },
];

/**
 * The rules of infra/kubernetes/rbac-advanced-daemonset.yaml: the same, with
 * the DaemonSet rules moved to the own kind and none for apps/v1 DaemonSets.
 */
export const ADVANCED_RECONCILER_RULES: readonly PolicyRule[] = [
  {
    apiGroups: ['apps.dsr.dev'],
    resources: ['advanceddaemonsets'],
    verbs: ['get', 'list', 'watch'],
  },
  {
    apiGroups: ['apps.dsr.dev'],
    resources: ['advanceddaemonsets/status'],
    verbs: ['update'],
  },
  {
    apiGroups: ['apps.dsr.dev'],
    resources: ['advanceddaemonsets/finalizers'],
    verbs: ['update'],
  },
  ...RECONCILER_RULES.slice(3, 6),
  { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
  ...RECONCILER_RULES.slice(6),
];

/**
 * The rules of infra/kubernetes/rbac-on-delete.yaml (native OnDelete
 * mode): reads, pod deletes and the hooks' pod patches; no creates, no
 * DaemonSet status, no ControllerRevision writes.
 */
export const ON_DELETE_RECONCILER_RULES: readonly PolicyRule[] = [
  {
    apiGroups: ['apps'],
    resources: ['daemonsets'],
    verbs: ['get', 'list', 'watch'],
  },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list', 'watch', 'delete', 'patch'],
  },
  { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
  {
    apiGroups: ['apps'],
    resources: ['controllerrevisions'],
    verbs: ['get', 'list', 'watch'],
  },
  ...RECONCILER_RULES.slice(7),
];

/** Returns the rules the reconciler needs for a cluster's ownership mode. */
export const reconcilerRulesFor = (ownership: string): readonly PolicyRule[] =>
  ownership === 'apps.dsr.dev/v1beta1'
    ? ADVANCED_RECONCILER_RULES
    : ownership === 'apps/v1+OnDelete'
      ? ON_DELETE_RECONCILER_RULES
      : RECONCILER_RULES;

/** Returns one check per group × resource × verb of `rules`, in rule order. */
export const accessChecksFromRules = (
  rules: readonly PolicyRule[]
): AccessCheck[] =>
  rules.flatMap((rule) =>
    rule.apiGroups.flatMap((group) =>
      rule.resources.flatMap((full) => {
        const [resource = '', subresource] = full.split('/');
        return rule.verbs.map((verb) => ({
          verb,
          group,
          resource,
          ...(subresource !== undefined && { subresource }),
        }));
      })
    )
  );

/**
 * Returns the resource as `kubectl describe clusterrole` shows it:
 * `daemonsets.apps/status`, `pods` for the core group.
 */
export const formatResource = (c: AccessCheck): string =>
  `${c.resource}${c.group === '' ? '' : `.${c.group}`}${c.subresource === undefined ? '' : `/${c.subresource}`}`;

/** Returns a check as `verb resource`, e.g. `update daemonsets.apps/status`. */
export const formatAccessCheck = (c: AccessCheck): string =>
  `${c.verb} ${formatResource(c)}`;
