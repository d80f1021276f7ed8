/** Why the replica planner cannot place the next replica, in words that name the rule, the counts and the names. */
import { InventoryDisk, InventoryNode, LonghornDiskType } from './inventory';
import { AntiAffinityLevel, ResolvedLevel, ResolvedScheduling } from './options';
import { capacityProblem, domainOf, Level, State, tagsMatch } from './planner-rules';
import { domainName, list, plural, UNIT } from './planner-wording';
import { formatBytes } from '../kubernetes/quantity';

/** Why no disk can take the next replica: names the hard level, the counts and the names. */
export function explainFailure(
  r: ResolvedScheduling,
  eligible: InventoryDisk[],
  nodes: InventoryNode[],
  state: State,
  size: number,
  levels: ResolvedLevel[],
  wantedType: LonghornDiskType,
): string {
  if (eligible.length === 0) return `no disk can hold a replica of this volume: ${exclusions(r, nodes, wantedType)}`;
  const noRoom = () => {
    const problems = eligible
      .map((d) => capacityProblem(d, state.scheduled(d), size, r))
      .filter((p): p is string => p !== undefined);
    return `no disk has room for another ${formatBytes(size)} replica: ${list(problems)}`;
  };
  const unit = levels.find((l) => l.hard);
  if (!unit) return noRoom();
  const l = unit.level;
  const domains = [...new Set(eligible.map((d) => domainOf(l, d)))];
  const used = new Set(state.placed.map((p) => domainOf(l, p.disk)));
  const usedCount = domains.filter((d) => used.has(d)).length;
  if (domains.length >= r.replicas && usedCount === 0) return noRoom();
  const need = `${r.replicas} replicas need ${plural(r.replicas, l)} without a replica of this volume ` +
    `(${l} anti-affinity is hard: ${unit.origin})`;
  const hint = l === AntiAffinityLevel.DISK
    ? `; set ${unit.option} to ENABLED to let replicas share a disk, lower numberOfReplicas, or add disks`
    : `; set ${unit.option} to ENABLED to let replicas share a ${l}, lower numberOfReplicas, or add ${UNIT[l][1]}`;
  if (domains.length < r.replicas) return `${need}; ${describeDomains(l, eligible, domains)}${hint}`;
  // Every domain without a replica of the volume is out of room, or a tier would have found it.
  const problems = eligible
    .filter((d) => !used.has(domainOf(l, d)))
    .map((d) => capacityProblem(d, state.scheduled(d), size, r))
    .filter((p): p is string => p !== undefined);
  return `${need}; of the ${plural(domains.length, l)} that could hold one, ${usedCount} already hold${usedCount === 1 ? 's' : ''} ` +
    `a replica and the other ${domains.length - usedCount} have no room for a ${formatBytes(size)} replica: ${list(problems)}`;
}

/** "node n1 has 2 disks", "3 nodes have a schedulable disk: n1, n2, n3", "2 zones have ...: a, b". */
function describeDomains(level: Level, eligible: InventoryDisk[], domains: string[]): string {
  if (level === AntiAffinityLevel.DISK) {
    const perNode = new Map<string, number>();
    for (const d of eligible) perNode.set(d.node, (perNode.get(d.node) ?? 0) + 1);
    if (perNode.size === 1) {
      const [[n, count]] = perNode;
      return `node ${n} has ${plural(count, level)}`;
    }
    return `nodes ${[...perNode.keys()].join(', ')} have ${plural(eligible.length, level)} (` +
      `${[...perNode].map(([n, c]) => `${n}: ${c}`).join(', ')})`;
  }
  const names = domains.map((d) => domainName(level, d));
  const unzoned = level === AntiAffinityLevel.ZONE && domains.includes('') ? '; nodes without a zone label count as one zone' : '';
  return `${domains.length === 1 ? `only ${plural(1, level)} has` : `only ${plural(domains.length, level)} have`} ` +
    `a disk that can hold a replica: ${list(names)}${unzoned}`;
}

/** Why no disk at all is eligible: counts of nodes and disks excluded by each rule. */
function exclusions(r: ResolvedScheduling, nodes: InventoryNode[], wantedType: LonghornDiskType): string {
  const reasons: string[] = [];
  const off = nodes.filter((n) => !n.allowScheduling).map((n) => n.name);
  if (off.length) reasons.push(`scheduling is disabled on node(s) ${list(off)}`);
  const schedulable = nodes.filter((n) => n.allowScheduling);
  const untagged = schedulable
    .filter((n) => !tagsMatch(n.tags, r.nodeSelector, r.settings.allowEmptyNodeSelectorVolume))
    .map((n) => n.name);
  if (untagged.length) {
    reasons.push(r.nodeSelector.length
      ? `node(s) ${list(untagged)} lack the nodeSelector tags [${r.nodeSelector.join(', ')}]`
      : `node(s) ${list(untagged)} are tagged and allow-empty-node-selector-volume is false`);
  }
  const nodesLeft = schedulable.filter((n) => !untagged.includes(n.name));
  const diskless = nodesLeft.filter((n) => n.disks.length === 0).map((n) => n.name);
  if (diskless.length) reasons.push(`node(s) ${list(diskless)} have no disk`);
  const disks = nodesLeft.flatMap((n) => n.disks);
  const id = (d: InventoryDisk) => `${d.node}/${d.name}`;
  const diskOff = disks.filter((d) => !d.allowScheduling).map(id);
  if (diskOff.length) reasons.push(`scheduling is disabled on disk(s) ${list(diskOff)}`);
  const wrongType = disks.filter((d) => d.allowScheduling && d.type !== wantedType).map(id);
  if (wrongType.length) reasons.push(`disk(s) ${list(wrongType)} are not ${wantedType} disks, which the ${r.dataEngine} data engine needs`);
  const diskUntagged = disks.filter((d) => d.allowScheduling && d.type === wantedType &&
    !tagsMatch(d.tags, r.diskSelector, r.settings.allowEmptyDiskSelectorVolume)).map(id);
  if (diskUntagged.length) {
    reasons.push(r.diskSelector.length
      ? `disk(s) ${list(diskUntagged)} lack the diskSelector tags [${r.diskSelector.join(', ')}]`
      : `disk(s) ${list(diskUntagged)} are tagged and allow-empty-disk-selector-volume is false`);
  }
  return reasons.join('; ');
}
