/**
 * The StatefulSets' replicas (pure): the manager owns them, since a StatefulSet scale-down deletes its highest
 * pods at once, and masters 5 -> 3 applied as-is would delete the master and the replica of shards 3 and 4
 * before their slots moved. So a zone's StatefulSet is scaled up to the layout at once (the new pods join,
 * as replicas or as masters that slots then move to), and down only once every node it would delete is out
 * of the cluster: holding no slot and known by no planned node (the manager's last phase, `retire`, drains,
 * forgets and resets the nodes the layout no longer has).
 */
import { ClusterNodeEntry, isMaster, ObservedNode, self, slotCount } from './model';
import { RedisShardLayout } from '../../../src/redis/layout';

export interface ZoneScale {
  readonly zone: string;
  readonly statefulSet: string;
  /** Its `spec.replicas` now. */
  readonly replicas: number;
}

export interface ScaleChange extends ZoneScale {
  /** The replicas to set. */
  readonly to: number;
}

export interface ScaleDecision {
  readonly changes: ScaleChange[];
  /** Zones to scale down later, and why not yet. */
  readonly waiting: string[];
}

/**
 * What to scale now. `nodes` is the inventory as just observed (nodes named `<zone slug>-<ordinal>`, in their
 * zone); `slugOf` gives a zone's slug (the node name prefix).
 */
export function decideScale(
  layout: RedisShardLayout,
  zones: readonly ZoneScale[],
  nodes: readonly ObservedNode[],
  slugOf: (zone: string) => string,
): ScaleDecision {
  const changes: ScaleChange[] = [];
  const waiting: string[] = [];
  const planned = nodes.filter((n) => n.reachable && layout.nodes.some((p) => p.name === n.name));
  for (const z of zones) {
    const want = layout.nodesPerZone[z.zone] ?? 0;
    if (z.replicas < want) {
      changes.push({ ...z, to: want });
      continue;
    }
    if (z.replicas === want) continue;
    const going = Array.from({ length: z.replicas - want }, (_, i) => `${slugOf(z.zone)}-${want + i}`);
    const busy = going
      .map((name) => nodes.find((n) => n.name === name))
      .filter((n): n is ObservedNode => n !== undefined)
      .map((n) => [n.name, stillInCluster(n, planned)] as const)
      .filter(([, why]) => why !== undefined);
    if (busy.length === 0) changes.push({ ...z, to: want });
    else waiting.push(`${z.statefulSet} stays at ${z.replicas} replicas until ${busy.map(([name, why]) => `${name} ${why}`).join(', ')}`);
  }
  return { changes, waiting };
}

/** Why a node the layout no longer has is still part of the cluster (undefined: it is out, its pod may go). */
function stillInCluster(node: ObservedNode, planned: readonly ObservedNode[]): string | undefined {
  const me = node.reachable ? self(node) : undefined;
  if (me && isMaster(me) && slotCount(me.slots) > 0) return `still serves ${slotCount(me.slots)} slots`;
  const isThisNode = (e: ClusterNodeEntry) => e.address === node.address || e.id === node.id;
  const knownBy = planned.filter((p) => p.view!.some((e) => isThisNode(e) && !e.flags.includes('myself')));
  if (knownBy.length > 0) return `is still known by ${knownBy.length} planned node(s) (${knownBy[0].name}, ...)`;
  return undefined;
}
