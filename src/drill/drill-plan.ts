/**
 * A drill's plan, before anything changes: the zone's nodes (and only those), and per workload the zone check's
 * prediction for losing that zone, run on the cluster's live objects and nodes. Pure: the run lists, this decides.
 */
import { drillRecordOf } from './drill-nodes';
import { WorkloadKey } from './drill-observe';
import { Prediction, predictionFor } from './drill-verdict';
import { analyzeInput } from '../check/analyze';
import { inventoryProps, zoneKeyOf } from '../check/cluster-nodes';
import { ZoneInventory } from '../check/inventory';
import { liveInput } from '../check/live/live-input';
import { ZoneReportData } from '../check/model';
import { DrillMode } from '../contract/drill';
import { Live, Node } from '../kubernetes/objects';

/** A drill that cannot start: exit 2 with the message. */
export class DrillRefused extends Error {}

export interface DrillPlan {
  readonly zone: string;
  readonly mode: DrillMode;
  /** The zone label the nodes use. */
  readonly zoneKey: string;
  readonly zones: readonly string[];
  /** The nodes the drill changes: those of the zone, by name. */
  readonly nodes: readonly string[];
  /** The check's report on the live objects. */
  readonly report: ZoneReportData;
}

/** A ZoneShift in force: a zone out of service. */
export interface ShiftInForce {
  readonly name: string;
  readonly zone: string;
}

/**
 * The plan for drilling `zone` in `mode` on a cluster of `nodes` holding `objects` (as listed: each with kind), with
 * `shifts` in force. Refused when the zone has no node, a node holds the record of an earlier drill (it was cut
 * short: restore it first), or a shift has another zone out of service: the prediction is for one zone lost.
 */
export function planDrill(
  nodes: readonly Live<Node>[], objects: readonly unknown[], zone: string, mode: DrillMode,
  shifts: readonly ShiftInForce[],
): DrillPlan {
  const recorded = nodes.map((n) => [n, drillRecordOf(n)] as const).filter(([, r]) => r !== undefined);
  if (recorded.length > 0) {
    const [node, record] = recorded[0];
    throw new DrillRefused(`node ${node.metadata.name} holds the record of a drill of zone ${record!.zone} (${record!.mode}, started ${record!.startedAt})` +
      `${recorded.length > 1 ? ` and ${recorded.length - 1} more nodes do` : ''}: it was cut short; run cdk8s-zones drill --restore first`);
  }
  const other = shifts.find((s) => s.zone !== zone);
  if (other !== undefined) {
    throw new DrillRefused(`zone ${other.zone} is out of service (zoneshift/${other.name}): a drill of zone ${zone} would take ` +
      'a second zone out, and its prediction is for one zone lost; end the shift first (cdk8s-zones shift cancel ' +
      `${other.name}), or drill zone ${other.zone}`);
  }
  const zoneKey = zoneKeyOf(nodes);
  const props = inventoryProps({ kind: 'NodeList', items: nodes }, undefined);
  if (!props.zones.includes(zone)) throw new DrillRefused(`--zone ${JSON.stringify(zone)}: no node is in that zone (the zones: ${props.zones.join(', ')})`);
  const inventory = new ZoneInventory(props);
  const report = analyzeInput(liveInput(objects, nodes, inventory.topologyKey), inventory);
  return {
    zone,
    mode,
    zoneKey,
    zones: props.zones,
    nodes: nodes.filter((n) => n.metadata?.labels?.[zoneKey] === zone).map((n) => n.metadata.name).sort(),
    report,
  };
}

/** The prediction of the plan for one workload, if the check models it. */
export function plannedPrediction(
  plan: DrillPlan,
  w: { kind: string; namespace: string; name: string },
): Prediction | undefined {
  const report = plan.report.workloads.find((r) => r.kind === w.kind
    && (r.namespace ?? 'default') === w.namespace
    && r.name === w.name);
  return report === undefined ? undefined : predictionFor(report, plan.zone);
}

/**
 * The systems of the check's report (judged as one: a zone group, an operator's resource), each with its members.
 */
export function systemsOf(plan: DrillPlan): WorkloadKey[] {
  const ns = (w: { namespace?: string }) => w.namespace ?? 'default';
  return plan.report.workloads.filter((g) => g.members !== undefined).map((g) => ({
    kind: g.kind,
    namespace: ns(g),
    name: g.name,
    members: plan.report.workloads.filter((m) => g.members!.includes(`${m.kind}/${m.namespace ?? '-'}/${m.name}`))
      .map((m) => ({ kind: m.kind, namespace: ns(m), name: m.name })),
  }));
}
