/**
 * `ZonalRedisCluster` `lostZoneRecovery`: each zone's StatefulSet opted in to the controller's lost-zone recovery for
 * all of its pods, standing in on the other zones' nodes (its zone term ORed with the stand-in term, its zone group
 * the cluster), and its pods told their real zone by the zone annotator. Refused without the features it needs.
 */
import { Chart, Size, Testing } from 'cdk8s';
import { ZonalRedisCluster, ZonalRedisClusterProps, ZoneController, ZoneControllerProps, ZoneTopology } from '../../src';
import { analyzeManifests } from '../../src/check/analyze';
import { ZoneInventory } from '../../src/check/inventory';

const RECOVERY = 'cdk8s-zones.dev/lost-zone-recovery';
const topology = new ZoneTopology({ zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });
const RECOVERING: ZoneControllerProps = { redisManager: true, zoneShift: true, lostZoneRecovery: true };

function synth(
  lostZoneRecovery: boolean | undefined,
  controllerProps: ZoneControllerProps = RECOVERING,
  more: Partial<ZonalRedisClusterProps> = {},
) {
  const app = Testing.app();
  const platform = new Chart(app, 'platform');
  const controller = new ZoneController(platform, 'controller', controllerProps);
  const chart = new Chart(app, 'cache', { namespace: 'cache', disableResourceNameHashes: true });
  new ZonalRedisCluster(chart, 'redis', {
    controller,
    topology,
    masters: 3,
    password: { name: 'redis-password', key: 'password' },
    name: 'redis',
    lostZoneRecovery,
    ...more,
  });
  const objects = Testing.synth(chart);
  return { statefulSets: objects.filter((o) => o.kind === 'StatefulSet'), objects, platform: Testing.synth(platform) };
}

const terms = (sts: any) =>
  sts.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;

test('each zone\'s StatefulSet: opted in for all its planned pods, its zone term ORed with its stand-in term, one zone group', () => {
  const { statefulSets, platform } = synth(true);
  expect(statefulSets.map((s) => [s.metadata.name, s.metadata.annotations[RECOVERY], s.spec.replicas])).toEqual([
    ['redis-eu-west-1a', '2', undefined], ['redis-eu-west-1b', '2', undefined], ['redis-eu-west-1c', '2', undefined],
  ]);
  expect(new Set(statefulSets.map((s) => s.metadata.annotations['cdk8s-zones.dev/zone-group']))).toEqual(new Set(['redis']));
  for (const [i, zone] of topology.zones.entries()) {
    expect(terms(statefulSets[i])).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] },
      { matchExpressions: [{ key: `stand-in.cdk8s-zones.dev/${zone}`, operator: 'Exists' }] },
    ]);
  }
  // every pod learns the zone it runs in, by the topology's key, from the zone annotator
  for (const s of statefulSets) {
    expect(s.spec.template.metadata.labels['cdk8s-zones.dev/zone-annotation']).toBe('enabled');
    expect(s.spec.template.metadata.annotations['cdk8s-zones.dev/zone-keys']).toBe('topology.kubernetes.io/zone');
    // the selector is the zone's, as before: a stand-in stays its StatefulSet's pod
    expect(s.spec.selector.matchLabels['cdk8s-zones.dev/zone-annotation']).toBeUndefined();
  }
  // the controller may delete the cluster's pods and claims in its namespace
  const role = platform.find((o) => o.kind === 'Role' && o.metadata.namespace === 'cache')!;
  expect(role.rules.filter((r: any) => r.verbs.includes('delete')).flatMap((r: any) => r.resources))
    .toEqual(expect.arrayContaining(['pods', 'persistentvolumeclaims']));
});

test('without it, nothing changes', () => {
  for (const off of [undefined, false]) {
    const { statefulSets } = synth(off, { redisManager: true });
    expect(statefulSets.every((s) => s.metadata.annotations[RECOVERY] === undefined)).toBe(true);
    expect(JSON.stringify(statefulSets)).not.toMatch(/stand-in|zone-annotation/);
  }
});

test('a controller without lostZoneRecovery, or without the zone annotator: refused, naming the cluster, the prop and the feature', () => {
  expect(() => synth(true, { redisManager: true, zoneShift: true }))
    .toThrow('ZonalRedisCluster \'cache/redis\': controller="ZoneController \'platform/controller\'" runs no lost-zone-recovery (lostZoneRecovery is off)');
  expect(() => synth(true, { ...RECOVERING, zoneAnnotator: false }))
    .toThrow('ZonalRedisCluster \'cache/redis\': controller="ZoneController \'platform/controller\'" runs no zone-annotator (zoneAnnotator is off)');
});

test('a StorageClass per zone: refused, since a stand-in\'s claim in another zone asks for its own zone\'s class', () => {
  const storage = { size: Size.gibibytes(1), storageClassNamePerZone: { 'eu-west-1a': 'disk-a' } };
  expect(() => synth(true, RECOVERING, { storage })).toThrow("ZonalRedisCluster 'cache/redis': lostZoneRecovery=true with " +
    'storage.storageClassNamePerZone cannot be used with a StorageClass per zone (eu-west-1a): a lost zone\'s pods come back');
  expect(() => synth(false, { redisManager: true }, { storage })).not.toThrow();
});

test('the zone check says the same of the cluster with it and without', () => {
  const inventory = new ZoneInventory({ zones: topology.zones, nodesPerZone: 3 });
  const report = (on: boolean) => {
    const { objects } = synth(on, on ? RECOVERING : { redisManager: true });
    const { workloads } = analyzeManifests(objects, inventory);
    return workloads.map((w) => ({ ...w, findings: w.findings.map((f) => f.rule) }));
  };
  const without = report(false);
  expect(without.filter((w) => w.name.startsWith('redis-'))).toHaveLength(3);
  expect(report(true)).toEqual(without);
});
