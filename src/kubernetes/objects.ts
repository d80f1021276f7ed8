/**
 * The Kubernetes objects the check and the drill read, as narrow readonly types of the fields they use: one home
 * for each type. Manifests and the API server's answers are JSON nobody has checked: they come in as `unknown`,
 * `asObject` narrows them at the edge, and every field below is optional, for a manifest may leave any out. A
 * manifest may also give a field the wrong type, so a reader keeps the runtime checks (`arrayOf`, `typeof`) of
 * the values it relies on: a wrong-typed field is a finding or a clear error, never a TypeError. Pure, no package.
 */

/** A JSON object whose fields are not known (a custom resource, an unchecked manifest). */
export interface JsonObject {
  readonly [field: string]: unknown;
}

/** Labels, annotations, a nodeSelector. */
export interface StringMap {
  readonly [key: string]: string;
}

/** `value` when it is a JSON object (not null, not an array), else undefined. */
export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as JsonObject : undefined;
}

/** `value` when it is an array, else an empty one (a list field left out, or not a list). */
export function arrayOf<T>(value: readonly T[] | undefined): readonly T[] {
  return Array.isArray(value) ? value : [];
}

/** Whether a list field holds a list (a manifest may give it another type). */
export function isList<T>(value: readonly T[] | undefined): value is readonly T[] {
  return Array.isArray(value);
}

/** The elements of `value` when it is an array, else none (a field whose type is not known). */
export function elementsOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export interface OwnerRef {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly controller?: boolean;
}

export interface Meta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly labels?: StringMap;
  readonly annotations?: StringMap;
  readonly ownerReferences?: readonly OwnerRef[];
  readonly deletionTimestamp?: string;
}

/** One requirement of a label or node selector (In, NotIn, Exists, DoesNotExist; a node selector's Gt, Lt). */
export interface Requirement {
  readonly key?: string;
  readonly operator?: string;
  readonly values?: readonly unknown[];
}

export interface LabelSelector {
  readonly matchLabels?: StringMap;
  readonly matchExpressions?: readonly Requirement[];
}

export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly Requirement[];
  readonly matchFields?: readonly Requirement[];
}

export interface PodAffinityTerm {
  readonly labelSelector?: LabelSelector;
  readonly topologyKey?: string;
}

export interface WeightedPodAffinityTerm {
  readonly weight?: number;
  readonly podAffinityTerm?: PodAffinityTerm;
}

export interface PodAffinity {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: readonly PodAffinityTerm[];
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly WeightedPodAffinityTerm[];
}

export interface NodeAffinity {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: {
    readonly nodeSelectorTerms?: readonly NodeSelectorTerm[];
  };
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly { readonly preference?: NodeSelectorTerm }[];
}

export interface Affinity {
  readonly nodeAffinity?: NodeAffinity;
  readonly podAffinity?: PodAffinity;
  readonly podAntiAffinity?: PodAffinity;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

export interface TopologySpreadConstraint {
  readonly topologyKey?: string;
  readonly maxSkew?: number;
  readonly minDomains?: number;
  readonly whenUnsatisfiable?: string;
  readonly labelSelector?: LabelSelector;
  readonly matchLabelKeys?: readonly unknown[];
  readonly nodeAffinityPolicy?: string;
  readonly nodeTaintsPolicy?: string;
}

/** A container's environment variable (a value written in the manifest; `valueFrom` is not read). */
export interface EnvVar {
  readonly name?: string;
  readonly value?: unknown;
}

export interface Container {
  readonly name?: string;
  readonly image?: unknown;
  readonly command?: readonly unknown[];
  readonly args?: readonly unknown[];
  readonly env?: readonly EnvVar[];
  readonly resources?: { readonly requests?: { readonly [resource: string]: unknown } };
  readonly ports?: readonly { readonly name?: string; readonly hostPort?: number; readonly containerPort?: number }[];
  readonly volumeMounts?: readonly { readonly name?: string; readonly mountPath?: string }[];
}

export interface Volume {
  readonly name?: string;
  readonly persistentVolumeClaim?: { readonly claimName?: unknown };
  readonly configMap?: { readonly name?: unknown };
  readonly secret?: { readonly secretName?: unknown };
}

export interface PodSpec {
  readonly nodeName?: string;
  readonly nodeSelector?: { readonly [key: string]: unknown };
  readonly affinity?: Affinity;
  readonly tolerations?: readonly Toleration[];
  readonly topologySpreadConstraints?: readonly TopologySpreadConstraint[];
  readonly containers?: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly volumes?: readonly Volume[];
  readonly hostNetwork?: boolean;
  readonly restartPolicy?: string;
  readonly readinessGates?: readonly { readonly conditionType: string }[];
}

export interface PodTemplate {
  readonly metadata?: Meta;
  readonly spec?: PodSpec;
}

/** A PersistentVolumeClaim template of a StatefulSet. */
export interface ClaimTemplate {
  readonly metadata?: Meta;
  readonly spec?: { readonly storageClassName?: unknown };
}

/** The spec of a Deployment, StatefulSet, ReplicaSet, DaemonSet or Job (the fields the check reads). */
export interface WorkloadSpec {
  readonly replicas?: unknown;
  readonly parallelism?: unknown;
  readonly selector?: LabelSelector;
  readonly template?: PodTemplate;
  readonly volumeClaimTemplates?: readonly ClaimTemplate[];
  /** A CronJob's. */
  readonly jobTemplate?: { readonly spec?: WorkloadSpec };
  /** A Deployment's. */
  readonly strategy?: { readonly type?: string };
  /** A StatefulSet's or a DaemonSet's. */
  readonly updateStrategy?: { readonly type?: string };
}

/** What every Kubernetes object has. */
export interface TypeAndMeta {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: Meta;
}

/** Any Kubernetes object as the check and the drill read it: its kind, metadata, and a spec of unknown kind. */
export interface KubeResource extends TypeAndMeta {
  readonly spec?: JsonObject;
  readonly status?: JsonObject;
}

/** A built-in workload (Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob). */
export interface Workload extends TypeAndMeta {
  readonly spec?: WorkloadSpec;
}

export interface Pod extends TypeAndMeta {
  readonly spec?: PodSpec;
  readonly status?: { readonly phase?: string; readonly conditions?: readonly { type: string; status: string }[] };
}

/** A node's taint (Kubernetes requires its key and effect). */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface Node extends TypeAndMeta {
  readonly spec?: { readonly taints?: readonly Taint[]; readonly unschedulable?: boolean };
  readonly status?: { readonly allocatable?: { readonly [resource: string]: unknown } };
}

/** An object as the API server answers it: its metadata always there, with a name. */
export type Live<T extends TypeAndMeta> = T & { readonly metadata: Meta & { readonly name: string } };

/**
 * The items of a list document (`kind: List`, `NodeList`...: any kind ending in List, with an `items` array),
 * undefined when `value` is no list.
 */
export function listItems(value: unknown): readonly unknown[] | undefined {
  const list = asObject(value);
  const isListDocument = typeof list?.kind === 'string' && list.kind.endsWith('List') && Array.isArray(list.items);
  return isListDocument ? list?.items as readonly unknown[] : undefined;
}

/** A Kubernetes object whose kind is known to be a string. */
export interface KindedResource extends KubeResource {
  readonly kind: string;
}

/** `value` as a Kubernetes object when it is a JSON object with a string kind, else undefined. */
export function asResource(value: unknown): KindedResource | undefined {
  const o = asObject(value);
  return typeof o?.kind === 'string' ? o as unknown as KindedResource : undefined;
}
