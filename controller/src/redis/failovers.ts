/**
 * Which master each shard should have now, and the graceful failovers that get it there: back to the planned
 * master (rebalance), and away from zones out of service (a ZoneShift). Pure, like `decide`, which asks it.
 */
import { ClusterAnalysis, cmp } from './cluster-analysis';
import { isMaster, self } from './model';
import { Step } from './steps';

/**
 * The graceful failovers that move every master out of the zones out of service: to a replica of it in sync in
 * another zone (the planned master's zone first, where it is one: the shard's way back to plan). A master with
 * no such replica stays (`staying`: why, for the issues).
 */
export function shiftSteps(c: ClusterAnalysis, shifted: ReadonlySet<string>): { steps: Step[]; staying: string[] } {
  const steps: Step[] = [];
  const staying: string[] = [];
  for (const shard of c.layout.shards) {
    const current = c.shardMaster(shard.index);
    if (!current || !shifted.has(current.zone)) continue;
    const heirs = c.reachable
      .filter((n) => !shifted.has(n.zone) && n.linkUp && self(n)?.masterId === current.id)
      // no stand-in where another will do (its zone would hold a master more than planned), the planned master first
      .sort((x, y) => Number(c.isStandIn(x)) - Number(c.isStandIn(y))
        || Number(y.name === shard.master) - Number(x.name === shard.master) || cmp(x.name, y.name));
    if (heirs.length > 0) steps.push({ kind: 'failover', on: heirs[0].name, takeover: false });
    else staying.push(`master ${current.name} stays in zone ${current.zone}, out of service: no replica of it in sync in another zone`);
  }
  return { steps, staying };
}

/**
 * The graceful failovers back to each shard's planned master, once it is a replica in sync; none to a master `hold`
 * names, nor to one standing in outside its zone.
 */
export function rebalanceSteps(c: ClusterAnalysis, takeover: boolean, hold?: ReadonlySet<string>): Step[] {
  const steps: Step[] = [];
  for (const shard of c.layout.shards) {
    const current = c.shardMaster(shard.index);
    const planned = c.byName(shard.master);
    if (!current || !planned || current === planned || hold?.has(planned.name) || c.isStandIn(planned)) continue;
    const me = self(planned)!;
    if (!isMaster(me) && me.masterId === current.id && planned.linkUp) {
      steps.push({ kind: 'failover', on: planned.name, takeover });
    }
  }
  return steps;
}
