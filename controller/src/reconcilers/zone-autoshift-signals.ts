/**
 * The autoshift's signals, read from its caches (and its Prometheus queries): each zone's nodes and their Leases,
 * the opted-in pods, the Services; what looks impaired, what the fail-safe would keep, what a practice run did.
 * The rules are the pure ones of src/autoshift/zone-signals.ts; this file only gathers their inputs.
 */
import { AutoshiftWatch } from './zone-autoshift-watches';
import {
  drillsUnderWay, mergeSignals, nodeSignals, podSignals, querySignals, SignalNode, SignalPod, signalPodOf, silentZones,
  sufferingWorkloads, ZoneSignals,
} from '../../../src/autoshift/zone-signals';
import { drillOnNode } from '../../../src/contract/drill';
import { AUTOSHIFT_DEFAULTS, ZoneAutoshiftSpec } from '../../../src/contract/zone-autoshift';
import { lastServingIn, shiftPodOf, shiftServiceOf } from '../../../src/contract/zone-shift-fail-safe';
import { conditionHolds } from '../../../src/kubernetes/pod-life';
import { KubeObject } from '../kube/api';
import { instantQuery, Sample } from '../prometheus-query';
import { Caches, nodeLeaseRenewedMs } from '../watches';

export interface AutoshiftSignals {
  /** The zones of the cluster's nodes, sorted. */
  readonly zones: readonly string[];
  readonly impaired: ZoneSignals;
  readonly pods: readonly SignalPod[];
  readonly lastServingIn: (zone: string) => readonly string[];
  /** The practice runs' outcome query: its samples above the threshold, in words. */
  readonly outcomeProblems: readonly string[];
  /** The zones none of whose nodes answers. */
  readonly silentZones: ReadonlySet<string>;
  /** The drills under way, in words. */
  readonly drills: readonly string[];
}

/** A query's failure: what it was, and why (the query then counts as no signal). */
export type QueryFailed = (what: string, err: unknown) => void;

/** The pod signal's settings (their defaults where the policy leaves pods out: the practice runs' check uses them). */
const podSpec = (spec: ZoneAutoshiftSpec) => spec.pods ?? AUTOSHIFT_DEFAULTS.pods;

export async function autoshiftSignals(
  caches: Caches<AutoshiftWatch>,
  spec: ZoneAutoshiftSpec,
  zoneOf: (node: KubeObject) => string | undefined,
  nowMs: number,
  failed: QueryFailed,
): Promise<AutoshiftSignals> {
  const nodes = caches.list('nodes');
  const zoneByNode = new Map(nodes.map((n) => [n.metadata.name, zoneOf(n)]));
  const signalNodes: SignalNode[] = nodes.map((n) => ({
    name: n.metadata.name,
    zone: zoneByNode.get(n.metadata.name),
    ready: conditionHolds(n, 'Ready'),
    leaseRenewedMs: nodeLeaseRenewedMs(caches, n.metadata.name),
    drill: drillOnNode(n),
  }));
  const podObjects = caches.list('pods');
  const zoneOfPod = (pod: KubeObject) => zoneByNode.get(pod.spec?.nodeName ?? '');
  const pods = podObjects.map((p) => signalPodOf(p, zoneOfPod(p), nowMs, podSpec(spec).startupSeconds));
  const shiftPods = podObjects.map((p) => shiftPodOf(p, zoneOfPod(p)));
  const services = caches.list('services').map(shiftServiceOf);
  const prometheus = spec.prometheus;
  const samples = prometheus?.query !== undefined ? await query(prometheus.url, prometheus.query, 'prometheus.query', failed) : [];
  const zoneSamples = samples.flatMap((s) => {
    const zone = s.labels[prometheus!.zoneLabel];
    return zone === undefined ? [] : [{ zone, value: s.value }];
  });
  const practice = spec.practiceRuns;
  const outcome = prometheus && practice?.outcomeQuery !== undefined
    ? await query(prometheus.url, practice.outcomeQuery, 'practiceRuns.outcomeQuery', failed) : [];
  return {
    zones: [...new Set(signalNodes.flatMap((n) => (n.zone === undefined ? [] : [n.zone])))].sort(),
    impaired: mergeSignals(
      nodeSignals(signalNodes, spec.nodes, nowMs),
      spec.pods ? podSignals(pods, spec.pods) : new Map(),
      prometheus?.query !== undefined
        ? querySignals(zoneSamples, prometheus.threshold!, `prometheus.query ${JSON.stringify(prometheus.query)} =`) : new Map(),
    ),
    pods,
    lastServingIn: (zone) => lastServingIn(shiftPods, services, zone),
    silentZones: silentZones(signalNodes, nowMs),
    drills: drillsUnderWay(signalNodes),
    outcomeProblems: outcome.filter((s) => s.value > practice!.outcomeThreshold!)
      .map((s) => `practiceRuns.outcomeQuery ${JSON.stringify(s.labels)} = ${s.value} > ${practice!.outcomeThreshold}`),
  };
}

/** What a practice run of `zone` did: the workloads that suffered, the outcome query's samples above its threshold. */
export function practiceOutcome(signals: AutoshiftSignals, spec: ZoneAutoshiftSpec, zone: string): string[] {
  return [...sufferingWorkloads(signals.pods, zone, podSpec(spec)), ...signals.outcomeProblems];
}

async function query(url: string, promql: string, what: string, failed: QueryFailed): Promise<Sample[]> {
  try {
    return await instantQuery(url, promql);
  } catch (err) {
    failed(what, err);
    return [];
  }
}
