/**
 * How an operator turns its custom resource into pods, as data (one `OperatorModel` per kind, in rows/): the pod sets
 * it makes, with their names, counts, labels and the resource's fields that reach their pod spec; the defaults it
 * adds; the disruption budgets it creates; and what the system needs to keep serving through a zone loss. One
 * interpreter (interpret.ts) reads every row, so a new operator is a row and its tests.
 *
 * Values are read by path: `spec.kafka.replicas` from the resource, `item.count` from the element of the list a pod set
 * is made for (`forEach`), `index` its position; keys with dots are quoted: `spec.config["min.insync.replicas"]`.
 * Templates put values in text: `{metadata.name}-es-{item.name}`.
 */

/** A path to a value (see above). */
export type Path = string;

/** A text with `{path}` placeholders. */
export type Template = string;

/** A whole number: written, read by path (a number or a numeric string) with a default, or derived. */
export type Count =
  | number
  /** Unset and no default: the resource is not valid (the operator's API requires it). */
  | { readonly path: Path; readonly default?: number }
  /** `path`'s total split among the pod sets of a `forEach` as evenly as can be, the first ones taking one more. */
  | { readonly split: Path; readonly default?: number }
  /** The first count that is set (the last one's default otherwise). */
  | { readonly firstOf: readonly Count[] }
  /** The pods of the pod sets with these roles (all, if none), less `minus`. */
  | { readonly podsOf?: readonly string[]; readonly minus?: Count }
  /** `then` when the condition holds, else `else`. */
  | { readonly when: Condition; readonly then: Count; readonly else: Count };

/** A test on the resource (or the pod set's element). */
export type Condition =
  /** The value is set (not undefined or null). */
  | { readonly set: Path }
  /** The value equals one of these (a list at the path: contains one of them; unset: `ifUnset`). */
  | { readonly path: Path; readonly is: readonly unknown[]; readonly ifUnset?: boolean }
  /** The value is a whole number no greater than `atMost` (not a whole number: `ifUnset`). */
  | { readonly path: Path; readonly atMost: number; readonly ifUnset?: boolean }
  | { readonly all: readonly Condition[] }
  | { readonly any: readonly Condition[] }
  | { readonly not: Condition };

/** One list the operator makes a pod set for each element of. */
export type ForEach =
  /** A list in the resource (`ifEmpty`: the elements the operator uses when it is empty or unset). */
  | { readonly list: Path; readonly ifEmpty?: readonly object[] }
  /** Other resources the operator reads (`OtherResources`). */
  | { readonly resources: OtherResources };

/** Other resources of the input, in the resource's namespace, whose labels match (templates). */
export interface OtherResources {
  readonly group: string;
  readonly kind: string;
  /** Its resource name in the API (`kafkanodepools`), for `check --live`. */
  readonly plural: string;
  readonly labels: Readonly<Record<string, Template>>;
}

/** A pod anti-affinity or spread term over the pod set's own labels. */
export interface DefaultTerm {
  readonly topologyKey: Template;
  /** Hard (required; DoNotSchedule) or soft (preferred; ScheduleAnyway). */
  readonly hard: boolean;
  /** The pod label keys its selector matches (their values as the pod set's); none: all of the pod set's labels. */
  readonly selectorKeys?: readonly string[];
  /** Match any value of `selectorKeys` (Exists), not the pod set's. */
  readonly anyValue?: boolean;
  /** Only when this holds. */
  readonly when?: Condition;
}

/** A requirement the operator adds to every required node selector term. */
export interface NodeRequirement {
  readonly key: Template;
  readonly operator: 'In' | 'Exists';
  /** For In: a path to a list of values. */
  readonly values?: Path;
  readonly when?: Condition;
}

/** Where the pod spec of a pod set comes from, and what the operator adds. */
export interface PodModel {
  /** Paths to a full pod spec (a `PodTemplateSpec`'s `spec`): the first one set is the base. */
  readonly template?: readonly Path[];
  /** Fields of the resource that become these pod spec fields (over the template's). */
  readonly fields?: {
    readonly affinity?: Path;
    readonly tolerations?: Path;
    readonly nodeSelector?: Path;
    readonly topologySpreadConstraints?: Path;
    readonly resources?: Path;
    /** A node affinity alone (the pod spec's `affinity.nodeAffinity`). */
    readonly nodeAffinity?: Path;
  };
  /** Spreads the pod spec writes without a labelSelector get one on these pod labels (as the operator fills it). */
  readonly spreadSelectorKeys?: readonly string[];
  /** A pod spec merged over the result as a strategic merge patch does (spreads by topologyKey). */
  readonly override?: Path;
  /**
   * Node labels the pods require, as a required node selector term of their own (the template's terms stay, OR-ed):
   * maps at these paths merged in order, or one label whose value is at a path.
   */
  readonly nodeLabels?: readonly (Path | { readonly key: string; readonly value: Path })[];
  readonly nodeRequirements?: readonly NodeRequirement[];
  /**
   * Affinities added to the pod spec's: their required node terms OR-ed with its own, their other terms appended
   * (cass-operator's racks).
   */
  readonly affinityAdded?: readonly Path[];
  /** The operator's pod anti-affinity: added only where the pod spec sets no affinity (`always`: added to it). */
  readonly antiAffinity?: DefaultTerm & { readonly always?: boolean };
  /** Spreads the operator adds (skipped where the pod spec has one on the same key). */
  readonly spread?: readonly DefaultTerm[];
}

/** A set of identical pods the operator makes (a StatefulSet, a Deployment, a pod set of its own). */
export interface PodSetModel {
  /** What needs call these pods (`voter`, `broker`, `data`); a role is the pod set's when its condition holds. */
  readonly roles: Readonly<Record<string, Condition | true>>;
  /** The object the operator makes for them: StatefulSet, Deployment, StrimziPodSet. */
  readonly madeAs: string;
  readonly name: Template;
  readonly forEach?: ForEach;
  /** Made only when this holds. */
  readonly when?: Condition;
  readonly replicas: Count;
  readonly labels: Readonly<Record<string, Template>>;
  /** Label maps copied onto the pods (under the operator's own labels). */
  readonly labelsFrom?: readonly Path[];
  readonly pod: PodModel;
  /** Whether each pod has a volume of its own (pinned to its zone once bound), and the class path. */
  readonly volumes?: { readonly when?: Condition; readonly storageClass?: Path };
}

/** A majority of the voters (the pods of the pod sets with `roles`, unless `voters` says how many are configured). */
export interface VotersNeedModel {
  readonly rule: 'voters';
  readonly roles: readonly string[];
  readonly voters?: Count;
  readonly formsWith: 'majority' | 'all';
  /** What it is, for the report (`the KRaft controller quorum`). */
  readonly what: string;
  /** Only when this holds (the pods it counts are optional). */
  readonly when?: Condition;
}

/** At least `count` pods of the pod sets with `roles`. */
export interface PodsNeedModel {
  readonly rule: 'pods';
  readonly roles: readonly string[];
  readonly count: Count;
  readonly what: string;
  readonly when?: Condition;
}

/** `need` of each item's `factor` copies, held by the pods of the pod sets with `roles`. */
export interface CopiesNeedModel {
  readonly rule: 'copies';
  readonly roles: readonly string[];
  readonly factor: Count;
  readonly need: Count;
  /** Copies on distinct zones when this holds (rack awareness by zone). */
  readonly spreadOverZones?: Condition;
  /** Copies on distinct pod sets (one rack each), where not over zones; else anywhere. */
  readonly spreadOverMembers?: boolean;
  readonly what: string;
  readonly when?: Condition;
}

/** What the system needs, over the pod sets with these roles. */
export type NeedModel = VotersNeedModel | PodsNeedModel | CopiesNeedModel;

/** A PodDisruptionBudget the operator creates. */
export interface BudgetModel {
  readonly name: Template;
  readonly selector: Readonly<Record<string, Template>>;
  readonly minAvailable: Count;
  readonly when?: Condition;
  /** One per pod set (with roles), rather than one for all. */
  readonly perPodSet?: boolean;
}

/** One kind of custom resource, as its operator handles it at a named release. */
export interface OperatorModel {
  readonly group: string;
  readonly kind: string;
  /** Its resource name in the API (`kafkas`): `check --live` lists `/apis/<group>/<version>/<plural>`. */
  readonly plural: string;
  /** The API versions (`v1`, `v1beta1`) modelled: a resource of another is named, not guessed. */
  readonly versions: readonly string[];
  /** The operator and the release the model follows (`Strimzi 1.2.0`). */
  readonly operator: string;
  /** Where in its source each part comes from (repository, files, functions). */
  readonly source: string;
  readonly podSets: readonly PodSetModel[];
  readonly needs: readonly NeedModel[];
  readonly budgets?: readonly BudgetModel[];
  /** Resources the model does not cover (an older form of the API), and why: named, not guessed. */
  readonly refuses?: readonly { readonly when: Condition; readonly why: string }[];
  /** What the model leaves out, for docs and the report. */
  readonly notModelled?: string;
}
