/**
 * The zonal shift's readiness gate on one pod (pure): a pod that names the condition `cdk8s-zones.dev/zone-in-service`
 * in its readiness gates is Ready only while the controller keeps it True, which it does but in a zone out of
 * service (a ZoneShift): there it is False, the pod not Ready, and its Services' endpoints leave it out; unless the
 * shift's fail-safe keeps it (it is among the last pods that can serve its workload or a Service).
 */
import { ZONE_IN_SERVICE_CONDITION } from '../../../src/contract/zone-shift';
import { FAIL_SAFE_REASON } from '../../../src/contract/zone-shift-fail-safe';
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

type GateCondition = { type: string; status: string; reason?: string; message?: string };

/** The pod's zone-in-service condition, if it has one. */
export function zoneGateCondition(pod: KubeObject): GateCondition | undefined {
  return (pod.status?.conditions as GateCondition[] | undefined)?.find((c) => c.type === ZONE_IN_SERVICE_CONDITION);
}

/** The pod's zone-in-service condition status ('True', 'False'), if it has one. */
export function zoneGateStatus(pod: KubeObject): string | undefined {
  return zoneGateCondition(pod)?.status;
}

/**
 * The condition `pod` should have: False when its zone (`zone`: its node's, as the zone annotation writes it;
 * undefined when unknown) is out of service for its namespace, unless the fail-safe keeps it (`keptBecause`: it is
 * among the last pods that can serve its workload or a Service, zone-shift-fail-safe.ts); else True.
 */
export function decideZoneGate(
  pod: KubeObject,
  zone: string | undefined,
  outOfService: ReadonlySet<string>,
  keptBecause?: string,
): ZoneGateDecision {
  if (!hasZoneGate(pod) || isTerminating(pod) || !pod.spec?.nodeName) return { kind: 'none' };
  const shifted = zone !== undefined && outOfService.has(zone);
  const want = gateFor(zone, shifted, keptBecause);
  const current = zoneGateCondition(pod);
  // a True gate is written again only to say whether the fail-safe holds it (its reason); the rest as it is
  const failSafe = (reason?: string) => reason === FAIL_SAFE_REASON;
  if (current?.status === want.status && failSafe(current.reason) === failSafe(want.reason)) return { kind: 'none' };
  return { kind: 'set', ...want };
}

function gateFor(zone: string | undefined, shifted: boolean, keptBecause: string | undefined) {
  if (shifted && keptBecause !== undefined) {
    return {
      status: 'True' as const,
      reason: FAIL_SAFE_REASON,
      message: `zone ${zone} is out of service, but this pod is one of ${keptBecause}: it serves until one serves elsewhere`,
    };
  }
  if (shifted) {
    return { status: 'False' as const, reason: 'ZoneShifted', message: `zone ${zone} is out of service (a ZoneShift): no traffic to this pod until it ends` };
  }
  const message = zone === undefined ? 'its node has no zone: no shift applies' : `zone ${zone} is in service`;
  return { status: 'True' as const, reason: 'ZoneInService', message };
}

/** The pods/status patch that writes the decision (a strategic merge: the condition is merged by its type). */
export function zoneGatePatch(decision: Extract<ZoneGateDecision, { kind: 'set' }>, nowMs: number): object {
  const { status, reason, message } = decision;
  const lastTransitionTime = new Date(nowMs).toISOString();
  return { status: { conditions: [{ type: ZONE_IN_SERVICE_CONDITION, status, reason, message, lastTransitionTime }] } };
}
