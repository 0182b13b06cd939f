// Health rules as data (--health-rules FILE and the built-in table, kinds/health/health-table.ts): for a
// group/kind, which conditions or status fields mean failed, progressing and healthy, in the
// spirit of Argo CD's resource health (resource_customizations/<group>/<kind>/health.lua) and
// kubedog's contrib rules. schema/health-rules.schema.json describes a file. Types only.

/** A condition of status.conditions (or of each entry under `each`, e.g. an HTTPRoute's status.parents). */
export interface ConditionMatch {
  condition: string;
  /** "True", "False" or "Unknown"; one of a list. Default: any. */
  status?: string | string[];
  /** The condition's reason, one of a list. Default: any. */
  reason?: string | string[];
  /** The condition's reason is none of these (cert-manager's Issuing False is a failure unless its reason is Issued). */
  reasonNot?: string | string[];
  /** A dotted path to a list whose entries carry their own `conditions` (status.parents). Every entry must match (healthy) or any (failed, progressing). */
  each?: string;
  /** Only under failed: no failure while this condition of status.conditions matches (cert-manager's Ready False while Issuing True). */
  unless?: { condition: string; status?: string | string[]; reason?: string | string[] };
}

/** A status field's value, by dotted path (status.phase). */
export interface FieldMatch {
  field: string;
  /** The value (compared as a string), one of a list. Absent: the field is set. */
  equals?: string | string[];
  /** Where the words of a match are read (status.message). */
  message?: string;
}

export type HealthMatch = ConditionMatch | FieldMatch;

export interface HealthRule {
  /** The rule's name, "group/Kind" by convention; kguard.dev/health-rule picks a rule by it. */
  id: string;
  /** The kinds it judges. A group may start with "*." (every subgroup, as Crossplane providers' *.upbound.io); kind "*" is every kind of the group. Empty: only picked by kguard.dev/health-rule. */
  match: Array<{ group: string; kind: string }>;
  /** Where the rule comes from (upstream health check, API docs). */
  source?: string;
  /** Judge only once status.observedGeneration (a number or a numeric string) caught up with metadata.generation. Default true; a condition's own observedGeneration is always respected. */
  observedGeneration?: boolean;
  /**
   * Any match: judged applied, not waited for: nothing will reconcile it (Flux spec.suspend,
   * Crossplane's crossplane.io/paused). Checked first, before status.observedGeneration, which
   * a suspended controller never catches up.
   */
  applied?: HealthMatch[];
  /** Any match: the rollout failed. `afterSeconds` waits that long first (a condition some controllers write while they retry). */
  failed?: Array<HealthMatch & { afterSeconds?: number }>;
  /** Any match: still progressing (checked after failed). */
  progressing?: HealthMatch[];
  /** Every match: healthy. Otherwise it is waited for until the deadline. Empty: healthy once applied (a kind without a status). */
  healthy: HealthMatch[];
}

export interface HealthRules {
  rules: HealthRule[];
}
