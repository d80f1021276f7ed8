/**
 * Whether a zone looks impaired, from signals every cluster has (pure): the share of its nodes that do not answer
 * (NotReady, or a Lease not renewed for a while: the node lifecycle controller's own evidence, seen before it marks
 * the node), and the share of its pods failing readiness while the same workloads serve in other zones; plus, where
 * the user gives one, a per-zone Prometheus sample. Each zone gets the list of signals that hold, in words. One home
 * for what "impaired" means: the autoshift starts shifts by it and practice runs check their outcome with it.
 */
import { DrillMode } from '../contract/drill';
import { nodeAnswers } from '../contract/lost-zone';
import { NodeSignalSpec, PodSignalSpec } from '../contract/zone-autoshift';
import { shiftPodOf, ShiftPodFields } from '../contract/zone-shift-fail-safe';
import { conditionHolds } from '../kubernetes/pod-life';
import { rfc3339Ms } from '../shared/times';

/** A node as the signals read it. */
export interface SignalNode {
  readonly name: string;
  readonly zone?: string;
  /** Its Ready condition is True. */
  readonly ready: boolean;
  /** When its Lease was last renewed (ms); undefined when it has none. */
  readonly leaseRenewedMs?: number;
  /** The drill under way on it (`drillOnNode`), if any: an outage drill plays the node gone. */
  readonly drill?: DrillMode;
}

/** A pod as the signals read it. */
export interface SignalPod {
  /** Its workload (`Kind/name in namespace`; a bare pod is its own). */
  readonly workload: string;
  readonly zone?: string;
  /** Its containers are Ready (a zonal shift's gate aside): it could serve. */
  readonly serving: boolean;
  /** It should serve and does not: scheduled, not going, not serving, and past its start (or restarted). */
  readonly failing: boolean;
}

/** What the signals found per zone: the zones that look impaired, each with why. */
export type ZoneSignals = ReadonlyMap<string, readonly string[]>;

/** A pod as the signals read it, in `zone`, at `nowMs`. */
export function signalPodOf(
  pod: ShiftPodFields & {
    metadata: { creationTimestamp?: string };
    status?: { containerStatuses?: ReadonlyArray<{ restartCount?: number }> };
  },
  zone: string | undefined,
  nowMs: number,
  startupSeconds: number,
): SignalPod {
  const shiftPod = shiftPodOf(pod, zone);
  const created = rfc3339Ms(pod.metadata.creationTimestamp);
  const restarted = (pod.status?.containerStatuses ?? []).some((c) => (c.restartCount ?? 0) > 0);
  const started = restarted || (created !== undefined && nowMs - created >= startupSeconds * 1000);
  const placed = Boolean(pod.spec?.nodeName) && !pod.metadata.deletionTimestamp
    && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
  return {
    workload: shiftPod.owner === undefined ? `Pod/${shiftPod.key}` : `${shiftPod.owner} in ${shiftPod.namespace}`,
    zone,
    serving: shiftPod.serving,
    failing: placed && started && !conditionHolds(pod, 'ContainersReady'),
  };
}

/** `count` of `total` as text, with its share. */
const share = (count: number, total: number) => `${count} of ${total}`;

/**
 * Per zone: why its nodes make it impaired (at least `unhealthyShare` of them NotReady, with a stale Lease, or under
 * an outage drill).
 */
export function nodeSignals(nodes: readonly SignalNode[], spec: NodeSignalSpec, nowMs: number): Map<string, string> {
  const found = new Map<string, string>();
  for (const [zone, members] of byZone(nodes)) {
    const notReady = members.filter((n) => !n.ready).map((n) => n.name);
    const staleLease = (n: SignalNode) =>
      n.leaseRenewedMs !== undefined && nowMs - n.leaseRenewedMs > spec.leaseStaleSeconds * 1000;
    const stale = members.filter((n) => n.ready && staleLease(n)).map((n) => n.name);
    const drilled = members.filter((n) => n.ready && !staleLease(n) && n.drill === 'outage').map((n) => n.name);
    const down = notReady.length + stale.length + drilled.length;
    if (down === 0 || down < spec.unhealthyShare * members.length) continue;
    const parts = [
      notReady.length > 0 ? `NotReady: ${listed(notReady)}` : '',
      stale.length > 0 ? `Lease not renewed for over ${spec.leaseStaleSeconds} s: ${listed(stale)}` : '',
      drilled.length > 0 ? `under an outage drill: ${listed(drilled)}` : '',
    ].filter(Boolean);
    found.set(zone, `${share(down, members.length)} nodes not answering (${parts.join('; ')})`);
  }
  return found;
}

/**
 * Per zone: why its pods make it impaired. Of the pods there whose workloads serve in another zone, at least
 * `failingShare` (and `minPods`) fail readiness: the zone, not the workload, is the likely cause.
 */
export function podSignals(pods: readonly SignalPod[], spec: PodSignalSpec): Map<string, string> {
  const found = new Map<string, string>();
  const zones = new Set(pods.flatMap((p) => (p.zone === undefined ? [] : [p.zone])));
  for (const zone of zones) {
    const elsewhere = pods.filter((p) => p.zone !== undefined && p.zone !== zone && p.serving);
    const servedElsewhere = new Set(elsewhere.map((p) => p.workload));
    const here = pods.filter((p) => p.zone === zone && servedElsewhere.has(p.workload));
    const failing = here.filter((p) => p.failing);
    const enough = failing.length > 0 && failing.length >= spec.minPods;
    if (!enough || failing.length < spec.failingShare * here.length) continue;
    const workloads = [...new Set(failing.map((p) => p.workload))].sort();
    found.set(zone, `${share(failing.length, here.length)} pods failing readiness while their workloads serve in other zones ` +
      `(${listed(workloads)})`);
  }
  return found;
}

/** Per zone: why its Prometheus sample makes it impaired (above `threshold`). */
export function querySignals(
  samples: ReadonlyArray<{ zone: string; value: number }>, threshold: number, what: string,
): Map<string, string> {
  return new Map(samples.filter((s) => s.value > threshold)
    .map((s) => [s.zone, `${what} ${s.value} > ${threshold}`]));
}

/** The zones none of whose nodes answers (`nodeAnswers`: neither Ready nor with a fresh Lease). */
export function silentZones(nodes: readonly SignalNode[], nowMs: number): Set<string> {
  return new Set([...byZone(nodes)]
    .filter(([, members]) => members.every((n) => !nodeAnswers(n.ready, n.leaseRenewedMs, nowMs)))
    .map(([zone]) => zone));
}

/** The drills under way, in words (`outage drill of zone-a`), one per zone and mode. */
export function drillsUnderWay(nodes: readonly SignalNode[]): string[] {
  const drills = nodes.flatMap((n) => (n.drill === undefined ? [] : [`${n.drill} drill of ${n.zone ?? 'nodes without a zone'}`]));
  return [...new Set(drills)].sort();
}

/** Every zone's signals merged: the zones with at least one, each with all of its. */
export function mergeSignals(...signals: ReadonlyArray<ReadonlyMap<string, string>>): ZoneSignals {
  const merged = new Map<string, string[]>();
  for (const found of signals) {
    for (const [zone, why] of found) merged.set(zone, [...merged.get(zone) ?? [], why]);
  }
  return merged;
}

function byZone<T extends { zone?: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    if (item.zone !== undefined) groups.set(item.zone, [...groups.get(item.zone) ?? [], item]);
  }
  return groups;
}

/** Names for a message: the first five, then how many more. */
function listed(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/**
 * What a practice run of `zone` did to the workloads (its outcome check): those with pods in other zones that no
 * longer serve, or fail readiness there by the pod signal's share. Empty: no workload suffered.
 */
export function sufferingWorkloads(pods: readonly SignalPod[], zone: string, spec: PodSignalSpec): string[] {
  const elsewhere = pods.filter((p) => p.zone !== undefined && p.zone !== zone);
  const workloads = [...new Set(elsewhere.map((p) => p.workload))].sort();
  return workloads.flatMap((workload) => {
    const own = elsewhere.filter((p) => p.workload === workload);
    const failing = own.filter((p) => p.failing).length;
    if (!own.some((p) => p.serving) && failing > 0) return [`${workload}: no pod serving outside ${zone}`];
    if (failing > 0 && failing >= spec.failingShare * own.length) {
      return [`${workload}: ${share(failing, own.length)} pods outside ${zone} failing readiness`];
    }
    return [];
  });
}
