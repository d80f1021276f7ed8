/**
 * What the zone annotator does with one pod, given the pod and its node as the caches hold them: a pure
 * function, unit-tested without a cluster.
 */
import { TEMPLATE_HASH_LABEL } from './zone-aware-update-deployment';
import { hasZoneGate, zoneGateStatus } from './zone-gate-decision';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { ZONE_IN_SERVICE_CONDITION } from '../../../src/contract/zone-shift';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { KubeObject } from '../kube/api';
import { PodShape } from '../kube/transforms';

/**
 * What the annotator reads of a pod: the cache keeps nothing else. Its Ready condition, phase and template hash are
 * for the zone readiness gauges (zone-readiness-metrics.ts), not the decisions (`decisionInputsChanged`).
 */
export const ANNOTATOR_POD_SHAPE: PodShape = {
  labels: [ZoneAnnotation.OPT_IN_LABEL, TEMPLATE_HASH_LABEL],
  annotations: [ZoneAnnotation.VALUE_ANNOTATION, ZoneAnnotation.KEYS_ANNOTATION],
  conditions: ['PodScheduled', ZONE_IN_SERVICE_CONDITION, 'Ready'],
  readinessGates: true,
  phase: true,
};

/**
 * What the annotator keeps of a pod when zonal shifts are on: besides its annotation's inputs, what the shift's
 * fail-safe reads (every label, for Services' selectors; whether its containers are Ready).
 */
export const GATED_POD_SHAPE: PodShape = {
  ...ANNOTATOR_POD_SHAPE,
  labels: 'all',
  conditions: [...ANNOTATOR_POD_SHAPE.conditions ?? [], 'ContainersReady'],
};

export type ZoneAnnotationDecision =
  /** Nothing to do: not opted in, not bound yet, being deleted, or already carrying the right value. */
  | { readonly kind: 'skip'; readonly why: 'not-opted-in' | 'not-bound' | 'terminating' | 'annotated' }
  /** Bound to a node the cache does not know (yet): decided again when the node appears. */
  | { readonly kind: 'wait-for-node'; readonly node: string }
  /** Write `value` (the annotation is absent or different). */
  | { readonly kind: 'annotate'; readonly value: string; readonly previous?: string }
  /** The node lacks some keys: an Event, and decided again when the node's labels change. */
  | { readonly kind: 'missing-label'; readonly node: string; readonly missing: string[] }
  /** The pod's keys annotation names no key. */
  | { readonly kind: 'invalid-keys'; readonly raw: string };

/** The topology keys for a pod: its own KEYS_ANNOTATION (comma-separated), else the controller's. */
export function topologyKeysOf(pod: KubeObject, defaultKeys: readonly string[]): string[] | undefined {
  const raw = pod.metadata.annotations?.[ZoneAnnotation.KEYS_ANNOTATION];
  if (raw === undefined) return [...defaultKeys];
  const keys = raw.split(',').map((k) => k.trim()).filter((k) => k !== '');
  return keys.length > 0 ? keys : undefined;
}

export function decideZoneAnnotation(
  pod: KubeObject,
  node: KubeObject | undefined,
  defaultKeys: readonly string[],
): ZoneAnnotationDecision {
  if (pod.metadata.labels?.[ZoneAnnotation.OPT_IN_LABEL] !== ZoneAnnotation.OPT_IN_VALUE) return { kind: 'skip', why: 'not-opted-in' };
  if (isTerminating(pod)) return { kind: 'skip', why: 'terminating' };
  const nodeName: string | undefined = pod.spec?.nodeName;
  if (!nodeName) return { kind: 'skip', why: 'not-bound' };
  const keys = topologyKeysOf(pod, defaultKeys);
  if (!keys) return { kind: 'invalid-keys', raw: pod.metadata.annotations![ZoneAnnotation.KEYS_ANNOTATION] };
  if (!node) return { kind: 'wait-for-node', node: nodeName };
  const labels = node.metadata.labels ?? {};
  const value = ZoneAnnotation.valueFor(labels, keys);
  if (value === undefined) return { kind: 'missing-label', node: nodeName, missing: keys.filter((k) => !labels[k]) };
  const previous = pod.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION];
  if (previous === value) return { kind: 'skip', why: 'annotated' };
  return previous === undefined ? { kind: 'annotate', value } : { kind: 'annotate', value, previous };
}

/** The fields of a pod's status condition `boundAt` reads. */
type PodCondition = { type: string; status: string; lastTransitionTime?: string };

/** When the pod was bound: its PodScheduled condition turning True (second precision), if known. */
export function boundAt(pod: KubeObject): number | undefined {
  const conditions = pod.status?.conditions as PodCondition[] | undefined;
  const scheduled = conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'True');
  const t = scheduled?.lastTransitionTime ? Date.parse(scheduled.lastTransitionTime) : NaN;
  return Number.isNaN(t) ? undefined : t;
}

/** The fields of a pod the decisions (annotation, readiness gate) depend on (status churn is not among them). */
function decisionInputs(
  pod: KubeObject,
  value = pod.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION],
): unknown[] {
  return [
    pod.spec?.nodeName,
    isTerminating(pod),
    pod.metadata.labels?.[ZoneAnnotation.OPT_IN_LABEL],
    pod.metadata.annotations?.[ZoneAnnotation.KEYS_ANNOTATION],
    value,
    hasZoneGate(pod),
    zoneGateStatus(pod),
  ];
}

/**
 * Whether a pod's change from `old` to `pod` can change the decision. `written` is the value the annotator
 * patched onto it and has not seen come back yet: the patch's own echo changes nothing.
 */
export function decisionInputsChanged(old: KubeObject, pod: KubeObject, written?: string): boolean {
  const echoed = written !== undefined && pod.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION] === written;
  const before = decisionInputs(old, echoed ? written : old.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION]);
  const after = decisionInputs(pod);
  return before.some((v, i) => v !== after[i]);
}
