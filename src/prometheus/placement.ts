import { k8s } from 'cdk8s-plus-28';
import { ResolvedPrometheus } from './options';
import { mergeNodeSelector } from '../kubernetes/node-selector';
import { hostSpreadConstraint, WhenUnsatisfiable, zoneSpreadConstraint } from '../topology/spread';

/** The node selector of a shard pinned to `zone`: the user's, with the zone (and region) keys set. */
export function zoneNodeSelector(p: ResolvedPrometheus, zone: string): { [key: string]: string } {
  return mergeNodeSelector(p.where, p.nodeSelector, p.topology.nodeLabelsForZone(zone));
}

/** The node selector of pods not pinned to a zone: the user's, with the region key when the topology has one. */
export function regionNodeSelector(p: ResolvedPrometheus): { [key: string]: string } {
  const region = p.topology.region === undefined ? {} : { [p.topology.regionKey]: p.topology.region };
  return mergeNodeSelector(p.where, p.nodeSelector, region);
}

/**
 * Soft spreading of the pods selected by `podLabels` across nodes, and across zones when they are not
 * pinned to one (address mode), so one node or zone failure takes as few shards as the cluster allows.
 */
export function podSpread(
  p: ResolvedPrometheus,
  podLabels: { [key: string]: string },
  acrossZones: boolean,
): k8s.TopologySpreadConstraint[] {
  const target = { selector: { matchLabels: { ...podLabels } }, podLabels };
  const hosts = hostSpreadConstraint(p.where, p.topology, target);
  if (!acrossZones) return [hosts];
  const zones = zoneSpreadConstraint(p.where, p.topology, target, {
    whenUnsatisfiable: WhenUnsatisfiable.SCHEDULE_ANYWAY,
  });
  return [zones, hosts];
}

/** The user's external labels plus the zone label (unless disabled by an empty `externalLabelName`). */
export function zoneExternalLabels(p: ResolvedPrometheus, zone: string): { [name: string]: string } {
  return { ...p.externalLabels, ...(p.externalLabelName === '' ? {} : { [p.externalLabelName]: zone }) };
}
