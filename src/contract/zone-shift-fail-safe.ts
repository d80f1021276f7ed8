/**
 * The zonal shift's fail-safe (pure): a shift never takes the last serving pods of a workload or of a Service.
 * Where every pod of a workload (its controller) or of a Service (its selector) that could serve sits in a zone out
 * of service, those pods stay in service, each with the reason; they leave as soon as one pod of that workload or
 * Service serves in a zone in service. AWS's zonal shift for EKS keeps a Service's endpoints in the same way when
 * all of them are in the impaired zone. One home for the rule: the zone annotator writes the gate by it, the shift's
 * status and `cdk8s-zones shift start` say what it keeps. Pure, no package: the controller imports it too.
 */
import { hasEnded, isTerminating, StatusCondition } from '../kubernetes/pod-life';

/** The reason of a gate kept True in a shifted zone. */
export const FAIL_SAFE_REASON = 'ZoneShiftFailSafe';

/** A gated pod as the fail-safe reads it. */
export interface ShiftPod {
  /** `namespace/name`. */
  readonly key: string;
  readonly namespace: string;
  /** Its controller (`Kind/name`), if any: a bare pod is a workload of its own. */
  readonly owner?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Its node's zone; undefined when unknown (then no shift applies to it). */
  readonly zone?: string;
  /**
   * Whether it could serve: bound, not being deleted, its containers Ready. Not the pod's Ready condition: the shift's
   * own gate makes a shifted pod not Ready.
   */
  readonly serving: boolean;
}

/** A Service as the fail-safe reads it: its selector (a Service without one selects no pod). */
export interface ShiftService {
  readonly namespace: string;
  readonly name: string;
  readonly selector?: Readonly<Record<string, string>>;
}

/** A group of pods that must keep a serving pod: a workload's, or a Service's. */
interface ServingGroup {
  readonly what: string;
  readonly pods: readonly ShiftPod[];
}

const selects = (selector: Readonly<Record<string, string>>, pod: ShiftPod) =>
  Object.entries(selector).every(([k, v]) => pod.labels[k] === v);

function groupsOf(pods: readonly ShiftPod[], services: readonly ShiftService[]): ServingGroup[] {
  const workloads = new Map<string, ShiftPod[]>();
  for (const pod of pods) {
    const id = pod.owner === undefined ? `Pod/${pod.key}` : `${pod.owner} in ${pod.namespace}`;
    workloads.set(id, [...workloads.get(id) ?? [], pod]);
  }
  const bySelector = services
    .filter((s) => s.selector !== undefined && Object.keys(s.selector).length > 0)
    .map((s) => ({
      what: `Service ${s.namespace}/${s.name}`,
      pods: pods.filter((p) => p.namespace === s.namespace && selects(s.selector!, p)),
    }));
  return [...[...workloads].map(([what, members]) => ({ what, pods: members })), ...bySelector];
}

/**
 * The pods of `pods` in a zone of `outOfService` that stay in service, each with why: the workloads and Services
 * they are the last serving pods of.
 */
export function failSafeKept(
  pods: readonly ShiftPod[],
  services: readonly ShiftService[],
  outOfService: ReadonlySet<string>,
): Map<string, string> {
  const why = new Map<string, string[]>();
  for (const group of groupsLeftWithout(pods, services, outOfService)) {
    for (const p of group.pods.filter((q) => shifted(q, outOfService))) {
      why.set(p.key, [...why.get(p.key) ?? [], group.what]);
    }
  }
  return new Map([...why].map(([key, whats]) => [key, `the last pods that can serve ${whats.join(' and ')}`]));
}

const shifted = (p: ShiftPod, outOfService: ReadonlySet<string>) => p.zone !== undefined && outOfService.has(p.zone);

/** The groups with pods in `outOfService` and no serving pod elsewhere. */
function groupsLeftWithout(
  pods: readonly ShiftPod[], services: readonly ShiftService[], outOfService: ReadonlySet<string>,
): ServingGroup[] {
  return groupsOf(pods, services).filter((g) => g.pods.some((p) => shifted(p, outOfService))
    && !g.pods.some((p) => p.serving && !shifted(p, outOfService)));
}

/**
 * The workloads and Services whose last serving pods are in `zone` (a shift of it would leave them to the fail-safe),
 * sorted: the autoshift never shifts such a zone.
 */
export function lastServingIn(pods: readonly ShiftPod[], services: readonly ShiftService[], zone: string): string[] {
  return groupsLeftWithout(pods, services, new Set([zone]))
    .filter((g) => g.pods.some((p) => p.serving))
    .map((g) => g.what).sort();
}

interface OwnerReference {
  readonly kind: string;
  readonly name: string;
  readonly controller?: boolean;
}

/** The fields of a pod the fail-safe reads. */
export interface ShiftPodFields {
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly deletionTimestamp?: string;
    readonly ownerReferences?: readonly OwnerReference[];
  };
  readonly spec?: { readonly nodeName?: string };
  readonly status?: { readonly phase?: string; readonly conditions?: readonly StatusCondition[] };
}

/** The label a Deployment's ReplicaSet gives its pods, and appends to the ReplicaSet's name. */
const TEMPLATE_HASH = 'pod-template-hash';

/**
 * A pod's workload: its controller, a Deployment for the pods of its ReplicaSets (named `<deployment>-<hash>`, each
 * pod labelled with the hash), so a rollout's old and new pods are one workload.
 */
export function workloadOfPod(pod: ShiftPodFields): string | undefined {
  const owner = pod.metadata.ownerReferences?.find((o) => o.controller);
  if (owner === undefined) return undefined;
  const hash = pod.metadata.labels?.[TEMPLATE_HASH];
  if (owner.kind === 'ReplicaSet' && hash && owner.name.endsWith(`-${hash}`)) {
    return `Deployment/${owner.name.slice(0, -hash.length - 1)}`;
  }
  return `${owner.kind}/${owner.name}`;
}

/** A pod as the fail-safe reads it, in zone `zone` (its node's). */
export function shiftPodOf(pod: ShiftPodFields, zone: string | undefined): ShiftPod {
  const containersReady = pod.status?.conditions?.some((c) => c.type === 'ContainersReady' && c.status === 'True') ?? false;
  return {
    key: `${pod.metadata.namespace}/${pod.metadata.name}`,
    namespace: pod.metadata.namespace ?? '',
    owner: workloadOfPod(pod),
    labels: pod.metadata.labels ?? {},
    zone,
    serving: Boolean(pod.spec?.nodeName) && !isTerminating(pod) && !hasEnded(pod) && containersReady,
  };
}

/** A Service as the fail-safe reads it. */
export function shiftServiceOf(service: {
  readonly metadata: { readonly name?: string; readonly namespace?: string };
  readonly spec?: { readonly selector?: Readonly<Record<string, string>> };
}): ShiftService {
  const { name = '', namespace = '' } = service.metadata;
  return { namespace, name, selector: service.spec?.selector };
}
