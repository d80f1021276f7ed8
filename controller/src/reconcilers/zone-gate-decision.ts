/**
 * The zonal shift's readiness gate on one pod (pure): a pod that names the condition `cdk8s-zones.dev/zone-in-service`
 * in its readiness gates is Ready only while the controller keeps it True, which it does but in a zone out of
 * service (a ZoneShift): there it is False, the pod not Ready, and its Services' endpoints leave it out.
 */
import { ZONE_IN_SERVICE_CONDITION } from '../../../src/contract/zone-shift';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { KubeObject } from '../kube/api';

export type ZoneGateDecision =
  /** Nothing to write: no gate, not bound yet, being deleted, or the condition already as it should be. */
  | { readonly kind: 'none' }
  /** Write the condition. */
  | { readonly kind: 'set'; readonly status: 'True' | 'False'; readonly reason: string; readonly message: string };

/** Whether the pod names the zone-in-service condition among its readiness gates. */
export function hasZoneGate(pod: KubeObject): boolean {
  const gates = pod.spec?.readinessGates as Array<{ conditionType?: string }> | undefined;
  return gates?.some((g) => g.conditionType === ZONE_IN_SERVICE_CONDITION) ?? false;
}

/** The pod's zone-in-service condition status ('True', 'False'), if it has one. */
export function zoneGateStatus(pod: KubeObject): string | undefined {
  const conditions = pod.status?.conditions as Array<{ type: string; status: string }> | undefined;
  return conditions?.find((c) => c.type === ZONE_IN_SERVICE_CONDITION)?.status;
}

/**
 * The condition `pod` should have: False when its zone (`zone`: its node's, as the zone annotation writes it;
 * undefined when unknown) is out of service for its namespace, else True.
 */
export function decideZoneGate(
  pod: KubeObject,
  zone: string | undefined,
  outOfService: ReadonlySet<string>,
): ZoneGateDecision {
  if (!hasZoneGate(pod) || isTerminating(pod) || !pod.spec?.nodeName) return { kind: 'none' };
  const shifted = zone !== undefined && outOfService.has(zone);
  const status = shifted ? 'False' : 'True';
  if (zoneGateStatus(pod) === status) return { kind: 'none' };
  return shifted
    ? { kind: 'set', status, reason: 'ZoneShifted', message: `zone ${zone} is out of service (a ZoneShift): no traffic to this pod until it ends` }
    : { kind: 'set', status, reason: 'ZoneInService', message: zone === undefined ? 'its node has no zone: no shift applies' : `zone ${zone} is in service` };
}

/** The pods/status patch that writes the decision (a strategic merge: the condition is merged by its type). */
export function zoneGatePatch(decision: Extract<ZoneGateDecision, { kind: 'set' }>, nowMs: number): object {
  const { status, reason, message } = decision;
  const lastTransitionTime = new Date(nowMs).toISOString();
  return { status: { conditions: [{ type: ZONE_IN_SERVICE_CONDITION, status, reason, message, lastTransitionTime }] } };
}
