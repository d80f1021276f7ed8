/**
 * What scales a workload (pure): a HorizontalPodAutoscaler (autoscaling/v1 or v2) or a KEDA ScaledObject
 * (keda.sh/v1alpha1, which runs an HPA of its own) that targets it owns its replica count, which then lies
 * between the autoscaler's minimum and maximum whatever the manifest's `replicas` says. The check counts the
 * minimum: the fewest replicas the workload can be scaled down to.
 */
import { TypeAndMeta } from '../kubernetes/objects';

/** A HorizontalPodAutoscaler or a KEDA ScaledObject: the fields the check reads. */
interface Autoscaler extends TypeAndMeta {
  readonly spec?: {
    readonly scaleTargetRef?: { readonly kind?: unknown; readonly name?: unknown };
    readonly minReplicas?: unknown;
    readonly minReplicaCount?: unknown;
  };
}

/** An autoscaler's hold on one workload. */
export interface CheckAutoscaler {
  readonly namespace?: string;
  /** The target's kind and name (`spec.scaleTargetRef`). */
  readonly targetKind: string;
  readonly targetName: string;
  /** The fewest replicas it scales the target to. */
  readonly min: number;
  /** Where the minimum comes from, for messages (e.g. "HorizontalPodAutoscaler web: minReplicas 3"). */
  readonly source: string;
}

/**
 * The autoscaler that object `o` is (undefined: none), or why it cannot be read. HPA `minReplicas` defaults to 1;
 * a ScaledObject's `minReplicaCount` to 0 and its target's kind to Deployment (KEDA's documented defaults,
 * https://keda.sh/docs/latest/reference/scaledobject-spec/).
 */
export function autoscalerOf(
  o: Autoscaler, name: string, namespace: string | undefined,
): CheckAutoscaler | string | undefined {
  const isHpa = o.kind === 'HorizontalPodAutoscaler' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('autoscaling/');
  const isKeda = o.kind === 'ScaledObject' && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('keda.sh/');
  if (!isHpa && !isKeda) return undefined;
  const ref = o.spec?.scaleTargetRef;
  if (typeof ref?.name !== 'string') return 'has no spec.scaleTargetRef.name';
  const field = isHpa ? 'minReplicas' : 'minReplicaCount';
  const raw = o.spec?.[field];
  const min = raw ?? (isHpa ? 1 : 0);
  if (!Number.isInteger(min) || (min as number) < 0) return `has ${field} ${JSON.stringify(raw)}, not a whole number`;
  const targetKind = typeof ref.kind === 'string' ? ref.kind : isKeda ? 'Deployment' : '';
  if (targetKind === '') return 'has no spec.scaleTargetRef.kind';
  return {
    namespace,
    targetKind,
    targetName: ref.name,
    min: min as number,
    source: `${o.kind} ${name}: ${field} ${min}${raw === undefined ? ' (its default)' : ''}`,
  };
}

/** The autoscaler that targets workload `kind/name` in `namespace`, if any. */
export function autoscalerFor(
  autoscalers: readonly CheckAutoscaler[], kind: string, name: string, namespace: string | undefined,
): CheckAutoscaler | undefined {
  return autoscalers.find((a) => a.targetKind === kind
    && a.targetName === name
    && (a.namespace ?? '') === (namespace ?? ''));
}
