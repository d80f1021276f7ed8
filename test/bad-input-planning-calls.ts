/**
 * The bad-input audit's valid calls (bad-input.test.ts) of the library's values and planners: topology, spreads and
 * affinities, quorum and survival, the zone check, shard and Redis layouts, Longhorn placement, rollout targets.
 */
import { Size } from 'cdk8s';
import * as lib from '../src';
import {
  Call,
  chart,
  deployment,
  INVENTORY,
  inventory,
  RULE,
  SCHEDULING,
  statefulSet,
  synth,
  topology,
} from './bad-input-fixtures';

export const PLANNING_CALLS: Record<string, Call> = {
  'ZoneTopology.<init>': {
    args: () => [{
      zones: ['a', 'b', 'c'],
      topologyKey: 'topology.kubernetes.io/zone',
      region: 'r1',
      regionKey: 'topology.kubernetes.io/region',
      hostnameKey: 'kubernetes.io/hostname',
      kubernetesVersion: '1.35',
    }],
    call: ([p]) => new lib.ZoneTopology(p),
  },
  'TopologySpread.acrossZones': {
    args: () => [{
      topology: topology(),
      podLabels: { app: 'web' },
      selector: { matchLabels: { app: 'web' } },
      maxSkew: 1,
      whenUnsatisfiable: lib.WhenUnsatisfiable.DO_NOT_SCHEDULE,
      minDomains: 3,
      matchLabelKeys: ['pod-template-hash'],
      nodeAffinityPolicy: lib.NodeInclusionPolicy.HONOR,
      nodeTaintsPolicy: lib.NodeInclusionPolicy.IGNORE,
    }],
    call: ([p]) => lib.TopologySpread.acrossZones(p),
  },
  'TopologySpread.acrossHosts': {
    args: () => [{
      topology: topology(),
      podLabels: { app: 'web' },
      maxSkew: 2,
      whenUnsatisfiable: lib.WhenUnsatisfiable.SCHEDULE_ANYWAY,
      matchLabelKeys: ['pod-template-hash'],
    }],
    call: ([p]) => lib.TopologySpread.acrossHosts(p),
  },
  'ZoneAffinity.restrictToZones': { args: () => [topology()], call: ([t]) => lib.ZoneAffinity.restrictToZones(t) },
  'ZoneAffinity.podAntiAffinity': {
    args: () => [{
      topology: topology(),
      domain: lib.FailureDomain.HOST,
      podLabels: { app: 'web' },
      selector: { matchLabels: { app: 'web' } },
      required: false,
      weight: 50,
    }],
    call: ([p]) => lib.ZoneAffinity.podAntiAffinity(p),
  },
  'Quorum.atLeast': { args: () => [2], call: ([n]) => lib.Quorum.atLeast(n) },
  'Survival.check': {
    args: () => [{ a: 1, b: 1, c: 1 }, lib.Quorum.majority(), 1],
    call: ([r, q, k]) => lib.Survival.check(r, q, k),
  },
  'Survival.maxPerZone': { args: () => [5, lib.Quorum.majority(), 1], call: ([t, q, k]) => lib.Survival.maxPerZone(t, q, k) },
  'Zonal.spread': {
    args: () => {
      const c = chart();
      const props = {
        topology: topology(),
        maxSkew: 1,
        spreadAcrossHosts: true,
        restrictToZones: true,
        hostSpread: { maxSkew: 2 },
      };
      return [deployment(c), props, c];
    },
    call: ([w, o, c]) => { lib.Zonal.spread(w, o); synth(c); },
    vary: [0, 1],
  },
  'Zonal.spreadAcrossHosts': {
    args: () => { const c = chart(); return [deployment(c), { topology: topology(), maxSkew: 1 }, c]; },
    call: ([w, o, c]) => { lib.Zonal.spreadAcrossHosts(w, o); synth(c); },
    vary: [0, 1],
  },
  'Zonal.pinToZone': {
    args: () => { const c = chart(); return [deployment(c), { topology: topology(), zone: 'a' }, c]; },
    call: ([w, o, c]) => { lib.Zonal.pinToZone(w, o); synth(c); },
    vary: [0, 1],
  },
  'ZoneInventory.<init>': {
    args: () => [{
      zones: ['a', 'b', 'c'],
      nodes: [{
        name: 'n1',
        zone: 'a',
        labels: { disk: 'ssd' },
        taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }],
        allocatableCpu: '4',
        allocatableMemory: '16Gi',
        allocatablePods: 110,
      }],
      topologyKey: 'topology.kubernetes.io/zone',
      hostnameKey: 'kubernetes.io/hostname',
    }],
    call: ([p]) => new lib.ZoneInventory(p),
  },
  'ZoneInventory.equalNodes': { args: () => [['a', 'b', 'c'], 2], call: ([z, n]) => lib.ZoneInventory.equalNodes(z, n) },
  'ZoneReport.analyze': {
    args: () => [[{
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'w' } },
        template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    }], lib.ZoneInventory.equalNodes(['a', 'b', 'c'], 2)],
    call: ([m, i]) => lib.ZoneReport.analyze(m, i),
    // the manifests are anything a YAML file holds: what is no Kubernetes object is reported as skipped, not
    // refused (test/check/analyze.test.ts); a manifests value that is no list is refused there too
    vary: [1],
  },
  'ZoneReport.of': {
    args: () => { const c = chart(); deployment(c); return [c, lib.ZoneInventory.equalNodes(['a', 'b', 'c'], 2)]; },
    call: ([c, i]) => lib.ZoneReport.of(c, i),
  },
  'ZoneReport.ofApp': {
    args: () => {
      const c = chart();
      deployment(c);
      return [c.node.root, lib.ZoneInventory.equalNodes(['a', 'b', 'c'], 2)];
    },
    call: ([a, i]) => lib.ZoneReport.ofApp(a, i),
  },
  'ZoneCheckValidation.<init>': {
    args: () => [{ zones: ['a', 'b', 'c'], nodesPerZone: 3, failOn: lib.ZoneCheckFailOn.ERROR }],
    call: ([p]) => new lib.ZoneCheckValidation(p),
  },
  'LonghornInventory.<init>': { args: () => [INVENTORY], call: ([p]) => new lib.LonghornInventory(p) },
  'LonghornPlacement.plan': {
    args: () => [inventory(), { ...SCHEDULING, size: Size.gibibytes(10), existingReplicas: [{ node: 'n-a', disk: 'd1' }] }],
    call: ([i, r]) => lib.LonghornPlacement.plan(i, r),
  },
  'ShardPlan.plan': {
    args: () => [{ topology: topology(), shards: 4, shardsPerZone: { a: 2, b: 1, c: 1 } }],
    call: ([p]) => lib.ShardPlan.plan(p),
  },
  'ShardRelabeling.forShard': {
    args: () => [{ topology: topology(), zone: 'a', inZoneIndex: 0, zoneShards: 2, hashLabel: '__address__' }],
    call: ([p]) => lib.ShardRelabeling.forShard(p),
  },
  'ShardRelabeling.byAddress': { args: () => [0, 2, '__address__'], call: ([i, n, l]) => lib.ShardRelabeling.byAddress(i, n, l) },
  'ShardRelabeling.toOperator': { args: () => [[RULE]], call: ([r]) => lib.ShardRelabeling.toOperator(r) },
  'ShardRelabeling.toPrometheusConfig': { args: () => [[RULE]], call: ([r]) => lib.ShardRelabeling.toPrometheusConfig(r) },
  'Hashmod.bucket': { args: () => ['10.0.0.1:9090', 3], call: ([v, m]) => lib.Hashmod.bucket(v, m) },
  'Hashmod.bucketOfLabels': { args: () => [['10.0.0.1:9090', 'x'], 3], call: ([v, m]) => lib.Hashmod.bucketOfLabels(v, m) },
  'ZoneAnnotation.valueFor': { args: () => [{ 'topology.kubernetes.io/zone': 'a' }, ['topology.kubernetes.io/zone']], call: ([l, k]) => lib.ZoneAnnotation.valueFor(l, k) },
  'RolloutTarget.statefulSet': { args: () => [statefulSet(chart())], call: ([s]) => lib.RolloutTarget.statefulSet(s) },
  'RolloutTarget.statefulSetName': { args: () => ['db'], call: ([n]) => lib.RolloutTarget.statefulSetName(n) },
  'RolloutTarget.statefulSetGroup': { args: () => [[statefulSet(chart())]], call: ([g]) => lib.RolloutTarget.statefulSetGroup(g) },
  'RolloutTarget.statefulSetGroupNames': { args: () => [['ingester-a', 'ingester-b']], call: ([g]) => lib.RolloutTarget.statefulSetGroupNames(g) },
  'RolloutTarget.deployment': { args: () => [deployment(chart())], call: ([d]) => lib.RolloutTarget.deployment(d) },
  'RolloutTarget.deploymentName': { args: () => ['web'], call: ([n]) => lib.RolloutTarget.deploymentName(n) },
  'RedisShardLayout.plan': {
    args: () => [{ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 }],
    call: ([p]) => lib.RedisShardLayout.plan(p),
  },
  'RedisShardLayout.fromJson': {
    args: () => [lib.RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 }).toJson()],
    call: ([j]) => lib.RedisShardLayout.fromJson(j),
  },
};
