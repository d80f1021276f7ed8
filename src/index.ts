// Failure-domain core: topology, placement builders, survival math, and spreading for cdk8s-plus.
export { ZoneTopology, ZoneTopologyProps } from './topology/zone-topology';
export {
  TopologySpread, SpreadOptions, SpreadConstraintProps, WhenUnsatisfiable, NodeInclusionPolicy, RevisionLabel,
} from './topology/spread';
export { ZoneAffinity, PodAntiAffinityProps, FailureDomain } from './topology/affinity';
export { NodeSelectors } from './topology/node-selector';
export { Quorum, Survival, SurvivalVerdict } from './topology/survival';
export { Zonal, ZonalSpreadOptions } from './topology/zonal';
