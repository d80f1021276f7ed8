/**
 * `direct.lostZoneRecovery`: the ingesters opted in to the controller's lost-zone recovery. Per-zone StatefulSets
 * each bring their zone's pods back at once and stand in on the other zones' nodes (their zone term ORed with the
 * stand-in term, their zone group the other zones' ingesters); one StatefulSet for all zones brings a zone's worth
 * back at a time. Refused without a controller.
 */
import { Chart, Size, Testing } from 'cdk8s';
import { IngesterRollout, LokiDirectOptions, ZoneAwareLokiStack, ZoneController, ZoneSource, ZoneTopology } from '../../src';
import { analyzeManifests } from '../../src/check/analyze';
import { ZoneInventory } from '../../src/check/inventory';

const RECOVERY = 'cdk8s-zones.dev/lost-zone-recovery';
const topology = new ZoneTopology({ zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });

/** The stack's ingesters and the platform chart; `controllerProps` null: no controller. */
const RECOVERING = { zoneShift: true, lostZoneRecovery: true };

function synthLoki(direct: Partial<LokiDirectOptions>, controllerProps: object | null = RECOVERING) {
  const objects = synthAll(direct, controllerProps);
  return { ingesters: objects.logs.filter((o) => o.kind === 'StatefulSet'), platform: objects.platform };
}

function synthAll(direct: Partial<LokiDirectOptions>, controllerProps: object | null) {
  const a = Testing.app();
  const platform = new Chart(a, 'platform');
  const controller = controllerProps === null
    ? undefined
    : new ZoneController(platform, 'controller', { zoneAwareUpdate: true, ...controllerProps });
  const chart = new Chart(a, 'logs', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    topology,
    namespace: 'logs',
    name: 'loki',
    direct: { controller, ingesterReplicasPerZone: 2, lostZoneRecovery: true, ...direct },
  });
  return { logs: Testing.synth(chart), platform: Testing.synth(platform) };
}

const terms = (sts: any) =>
  sts.spec.template.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;

test('per-zone StatefulSets: each opted in for all its pods, its zone term ORed with its stand-in term, in one zone group', () => {
  const { ingesters, platform } = synthLoki({});
  expect(ingesters.map((s) => [s.metadata.name, s.metadata.annotations[RECOVERY]])).toEqual([
    ['loki-ingester-eu-west-1a', '2'], ['loki-ingester-eu-west-1b', '2'], ['loki-ingester-eu-west-1c', '2'],
  ]);
  expect(new Set(ingesters.map((s) => s.metadata.annotations['cdk8s-zones.dev/zone-group'])).size).toBe(1);
  for (const [i, zone] of topology.zones.entries()) {
    expect(terms(ingesters[i])).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] },
      { matchExpressions: [{ key: `stand-in.cdk8s-zones.dev/${zone}`, operator: 'Exists' }] },
    ]);
  }
  // the controller may delete pods and claims in the stack's namespace, and label the nodes
  const role = platform.find((o) => o.kind === 'Role' && o.metadata.namespace === 'logs')!;
  expect(role.rules.filter((r: any) => r.verbs.includes('delete')).flatMap((r: any) => r.resources)).toEqual(
    expect.arrayContaining(['pods', 'persistentvolumeclaims']));
  const cluster = platform.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules);
  expect(cluster.some((r: any) => r.resources.includes('nodes') && r.verbs.includes('patch'))).toBe(true);
});

test('one StatefulSet for all zones: a zone\'s worth at once, no stand-in term (its pods may run in any zone)', () => {
  const { ingesters } = synthLoki({ zoneSource: ZoneSource.podTopologyLabels() });
  expect(ingesters.map((s) => [s.spec.replicas, s.metadata.annotations[RECOVERY]])).toEqual([[6, '2']]);
  expect(JSON.stringify(ingesters[0].spec.template.spec)).not.toContain('stand-in');
});

test('without it, nothing changes', () => {
  const { ingesters } = synthLoki({ lostZoneRecovery: undefined }, {});
  expect(ingesters.every((s) => s.metadata.annotations[RECOVERY] === undefined)).toBe(true);
  expect(JSON.stringify(ingesters)).not.toContain('stand-in');
});

test('no controller: refused, naming the stack, the prop and the rule', () => {
  expect(() => synthLoki({}, null))
    .toThrow("ZoneAwareLokiStack 'logs/loki': direct.lostZoneRecovery=true needs direct.controller: the ZoneController that runs lostZoneRecovery");
});

test('a controller that rolls nothing (a partitioned rollout) may still bring the ingesters back', () => {
  const partitioned = { ingesterRollout: IngesterRollout.PARTITIONED };
  const { ingesters } = synthLoki(partitioned, { ...RECOVERING, zoneAwareUpdate: false });
  expect(ingesters.map((s) => [s.spec.updateStrategy.type, s.metadata.annotations[RECOVERY]]))
    .toEqual(ingesters.map(() => ['RollingUpdate', '2']));
  expect(() => synthLoki({ ...partitioned, lostZoneRecovery: false }, { zoneAwareUpdate: true }))
    .toThrow('IngesterRollout.PARTITIONED (no controller rolls them) and direct.lostZoneRecovery is off: drop one of the two');
});

test('a StorageClass per zone: refused, since a stand-in\'s claim in another zone asks for its own zone\'s class', () => {
  const ingesterStorage = { size: Size.gibibytes(1), storageClassNamePerZone: { 'eu-west-1b': 'disk-b' } };
  expect(() => synthLoki({ ingesterStorage })).toThrow("ZoneAwareLokiStack 'logs/loki': direct.lostZoneRecovery=true with " +
    'direct.ingesterStorage.storageClassNamePerZone cannot be used with a StorageClass per zone (eu-west-1b)');
});

test('a controller without lostZoneRecovery: refused, naming the feature', () => {
  expect(() => synthLoki({}, { zoneShift: true })).toThrow(/lost-zone-recovery|lostZoneRecovery/);
});

test('the zone check says the same of the stack with it and without: no node carries a stand-in label before a zone is lost', () => {
  const inventory = new ZoneInventory({ zones: topology.zones, nodesPerZone: 3 });
  const report = (on: boolean) => {
    const { logs } = synthAll({ lostZoneRecovery: on }, on ? RECOVERING : {});
    return analyzeManifests(logs, inventory).workloads.map((w) => ({ ...w, findings: w.findings.map((f) => f.rule) }));
  };
  const without = report(false);
  expect(without.some((w) => w.name.includes('ingester'))).toBe(true);
  expect(report(true)).toEqual(without);
});
