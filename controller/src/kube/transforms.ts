/**
 * What the caches keep of an object (`InformerOptions.transform`): only the fields the reconcilers read.
 * A pod as the API server sends it is about 6 KiB of heap, mostly its spec, status and managedFields; the
 * zone annotator reads a few hundred bytes of it. Every shape keeps `metadata.resourceVersion` (a relist
 * compares it) and what Events name (uid).
 */
import { KubeObject, ObjectMeta } from './api';

/** Which labels or annotations to keep: all of them, or the named keys. */
export type Keep = 'all' | readonly string[];

export interface MetaShape {
  /** @default none */
  readonly labels?: Keep;
  /** @default none */
  readonly annotations?: Keep;
}

function pick(map: Record<string, string> | undefined, keep: Keep | undefined): Record<string, string> | undefined {
  if (!map || !keep) return undefined;
  if (keep === 'all') return map;
  const kept = keep.filter((k) => k in map);
  return kept.length > 0 ? Object.fromEntries(kept.map((k) => [k, map[k]])) : undefined;
}

/** Drops undefined fields, so a slim object has only what its source had. */
function defined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

/** Identity, version, owners, deletion and the chosen labels and annotations. */
export function slimMeta(meta: ObjectMeta, shape: MetaShape = {}): ObjectMeta {
  return defined({
    name: meta.name,
    namespace: meta.namespace,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
    generation: meta.generation,
    creationTimestamp: meta.creationTimestamp,
    deletionTimestamp: meta.deletionTimestamp,
    ownerReferences: meta.ownerReferences?.map(
      ({ apiVersion, kind, name, uid, controller }) => defined({ apiVersion, kind, name, uid, controller }),
    ),
    labels: pick(meta.labels, shape.labels),
    annotations: pick(meta.annotations, shape.annotations),
  });
}

export interface PodShape extends MetaShape {
  /** The status conditions to keep (type, status, reason, message, lastTransitionTime), e.g. `Ready`. @default none */
  readonly conditions?: readonly string[];
  /** Keep `status.podIP`. @default false */
  readonly podIP?: boolean;
  /** Keep `status.phase`. @default false */
  readonly phase?: boolean;
  /** Keep `spec.readinessGates`. @default false */
  readonly readinessGates?: boolean;
}

/**
 * The fields of a pod's status condition a slim pod keeps: its reason and message say who holds it so and why (the
 * zonal shift's fail-safe).
 */
type PodCondition = { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string };

/**
 * A pod as `shape` says: metadata, `spec.nodeName`, the chosen conditions, its IP, phase and readiness gates if
 * asked.
 */
export function slimPod(pod: KubeObject, shape: PodShape = {}): KubeObject {
  const conditions = (pod.status?.conditions as PodCondition[] | undefined)
    ?.filter((c) => shape.conditions?.includes(c.type))
    .map(({ type, status, reason, message, lastTransitionTime }) =>
      defined({ type, status, reason, message, lastTransitionTime }));
  return {
    metadata: slimMeta(pod.metadata, shape),
    spec: defined({
      nodeName: pod.spec?.nodeName as string | undefined,
      readinessGates: shape.readinessGates
        ? pod.spec?.readinessGates as Array<{ conditionType: string }> | undefined
        : undefined,
    }),
    status: defined({
      conditions: conditions?.length ? conditions : undefined,
      podIP: shape.podIP ? pod.status?.podIP as string | undefined : undefined,
      phase: shape.phase ? pod.status?.phase as string | undefined : undefined,
    }),
  };
}

/** A node: its name and labels (the topology labels a zone is made of). */
export function slimNode(node: KubeObject): KubeObject {
  return { metadata: slimMeta(node.metadata, { labels: 'all' }) };
}

/** An object's Ready condition status (a node's, a pod's), or undefined when it has none. */
export function readyStatus(obj: KubeObject): string | undefined {
  return (obj.status?.conditions as PodCondition[] | undefined)?.find((c) => c.type === 'Ready')?.status;
}

/** A node with its Ready condition only (Unknown when it has none): whether it answers, with its Lease. */
export function slimReadyNode(node: KubeObject): KubeObject {
  return { ...slimNode(node), status: { conditions: [{ type: 'Ready', status: readyStatus(node) ?? 'Unknown' }] } };
}

/** A node with its taints too (a zonal shift's among them). */
export function slimTaintedNode(node: KubeObject): KubeObject {
  return { ...slimNode(node), spec: { taints: node.spec?.taints } };
}

/** The whole object but its managedFields (server-side apply bookkeeping, often half of it). */
export function withoutManagedFields(obj: KubeObject): KubeObject {
  const { managedFields, ...metadata } = obj.metadata as ObjectMeta & { managedFields?: unknown };
  return managedFields === undefined ? obj : { ...obj, metadata };
}
