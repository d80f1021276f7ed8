import { parse } from 'yaml';
import { ZoneController, ZoneSource } from '../../src';
import { only, testChart } from '../util';
import { at135, direct } from './loki-fixtures';

describe('moving a running Loki to zone awareness (direct.zoneAwarenessMigration)', () => {
  const HOUR = 3_600_000;
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString().replace(/\.\d+Z$/, 'Z');
  const labels = { zoneSource: ZoneSource.podTopologyLabels(), topology: at135, ruler: true };
  const rolling = new ZoneController(testChart(), 'zones', { image: 'ghcr.io/example/cdk8s-zones-controller:0.1.0', zoneAwareUpdate: true, workloadNamespaces: ['logs'] });
  const configOf = (m: any[], name: string) => parse(only(m, 'ConfigMap', name).data['config.yaml']);
  const mounted = (m: any[], workload: string) => {
    const podTemplate = m.find((o) => o.metadata.name === workload && o.spec?.template).spec.template;
    return podTemplate.spec.volumes.find((v: any) => v.name === 'config').configMap.name;
  };
  const zoneAware = (m: any[]) => Object.fromEntries(['loki-ingester', 'loki-distributor', 'loki-querier', 'loki-ruler', 'loki-query-frontend', 'loki-index-gateway', 'loki-compactor']
    .map((w) => [w, configOf(m, mounted(m, w)).common.ring.zone_awareness_enabled]));
  const step = (migration: any) => direct({ ...labels, controller: rolling, zoneAwarenessMigration: migration });

  test('step 1: the ingesters read the zone-aware configuration; the distributors, queriers and rulers one without zone awareness, otherwise the same', () => {
    const { manifests, warnings } = direct({ ...labels, zoneAwarenessMigration: {} });
    expect(zoneAware(manifests)).toEqual({
      'loki-ingester': true,
      'loki-distributor': false,
      'loki-querier': false,
      'loki-ruler': false,
      'loki-query-frontend': true,
      'loki-index-gateway': true,
      'loki-compactor': true,
    });
    const before = configOf(manifests, 'loki-config-before-zones');
    const zoneAwareRing = { ...before.common.ring, zone_awareness_enabled: true };
    expect({ ...before, common: { ...before.common, ring: zoneAwareRing } }).toEqual(configOf(manifests, 'loki-config'));
    expect(configOf(manifests, 'loki-config').querier).toEqual({ query_ingesters_within: '3h' });
    expect(warnings).toEqual(expect.arrayContaining([expect.stringMatching(/step 1 of 3: the ingesters restart with their zones.*ingestersRolledOutAt/)]));
    // Kubernetes' RollingUpdate defaults written out, so that step 2's apply may make them Recreate
    // (it removes what it set)
    for (const name of ['loki-distributor', 'loki-querier', 'loki-ruler']) {
      const kubernetesDefault = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };
      expect([name, only(manifests, 'Deployment', name).spec.strategy]).toEqual([name, kubernetesDefault]);
    }
    expect(only(manifests, 'Deployment', 'loki-query-frontend').spec.strategy).toBeUndefined();
  });

  test('step 2: the distributors too; the ingesters unchanged (nothing restarts them again)', () => {
    const one = step({}).manifests;
    const { manifests, warnings } = direct({
      ...labels, zoneAwarenessMigration: { ingestersRolledOutAt: ago(60_000) },
    });
    expect(zoneAware(manifests)).toMatchObject({ 'loki-ingester': true, 'loki-distributor': true, 'loki-querier': false, 'loki-ruler': false });
    expect(only(manifests, 'StatefulSet').spec.template).toEqual(only(one, 'StatefulSet').spec.template);
    expect(warnings).toEqual(expect.arrayContaining([expect.stringMatching(/step 2 of 3: .*writePathRolledOutAt.*3 hours \(query_ingesters_within\) later/)]));
  });

  test('step 2 with a controller: it rolls the distributors after the ingesters, then the queriers and rulers 3 hours after the distributors', () => {
    const { manifests, warnings } = step({ ingestersRolledOutAt: ago(60_000) });
    const held = ['loki-distributor', 'loki-querier', 'loki-ruler'];
    for (const name of held) {
      const d = only(manifests, 'Deployment', name);
      // paused, so the controller rolls it; its template is the zone-aware one already, its pods keep theirs until then
      expect([name, d.spec.paused, d.spec.strategy, mounted(manifests, name)]).toEqual([name, true, { type: 'Recreate' }, 'loki-config']);
    }
    expect(only(manifests, 'Deployment', 'loki-query-frontend').spec.paused).toBeUndefined();
    // the configuration the pods rolled in step 1 still read
    expect(configOf(manifests, 'loki-config-before-zones').common.ring.zone_awareness_enabled).toBe(false);
    const zaus = Object.fromEntries(manifests.filter((o) => o.kind === 'ZoneAwareUpdate').map((z) => [z.metadata.name, z.spec]));
    expect(zaus).toEqual({
      'loki-ingester': expect.objectContaining({ statefulsets: ['loki-ingester'], maxUnavailable: 1 }),
      'loki-distributor': {
        deployment: 'loki-distributor',
        maxUnavailable: 1,
        exponentialFactor: 0,
        startAfter: { zoneAwareUpdate: 'loki-ingester' },
      },
      'loki-querier': {
        deployment: 'loki-querier',
        maxUnavailable: 1,
        exponentialFactor: 0,
        startAfter: { zoneAwareUpdate: 'loki-distributor', delaySeconds: 10800 },
      },
      'loki-ruler': {
        deployment: 'loki-ruler',
        maxUnavailable: 1,
        exponentialFactor: 0,
        startAfter: { zoneAwareUpdate: 'loki-distributor', delaySeconds: 10800 },
      },
    });
    expect(warnings).toEqual([expect.stringMatching(/step 2 of 3, carried out by the controller: .*3 hours .*their status says when they start/)]);
    // without a ruler, no ZoneAwareUpdate for it
    const noRuler = direct({
      ...labels, ruler: false, controller: rolling, zoneAwarenessMigration: { ingestersRolledOutAt: ago(60_000) },
    }).manifests;
    expect(noRuler.filter((o) => o.kind === 'ZoneAwareUpdate').map((z) => z.metadata.name)).toEqual(['loki-ingester', 'loki-distributor', 'loki-querier']);
  });

  test('steps 1 and 2 roll the ingesters one pod at a time (the replicas written before may share a zone); step 3 a zone per wave', () => {
    for (const m of [{}, { ingestersRolledOutAt: ago(60_000) }]) {
      expect(only(step(m).manifests, 'ZoneAwareUpdate', 'loki-ingester').spec)
        .toMatchObject({ statefulsets: ['loki-ingester'], maxUnavailable: 1, exponentialFactor: 0 });
    }
    const settled = step({ ingestersRolledOutAt: ago(4 * HOUR), writePathRolledOutAt: ago(3 * HOUR + 60_000) });
    expect(only(settled.manifests, 'ZoneAwareUpdate', 'loki-ingester').spec)
      .toMatchObject({ maxUnavailable: '100%', exponentialFactor: 0 });
  });

  test('step 3, once the lookback has passed: exactly the objects of a stack without a migration', () => {
    const three = step({ ingestersRolledOutAt: ago(4 * HOUR), writePathRolledOutAt: ago(3 * HOUR + 60_000) });
    expect(three.manifests).toEqual(direct({ ...labels, controller: rolling }).manifests);
    expect(three.warnings).toEqual([expect.stringMatching(/step 3 of 3.*remove direct.zoneAwarenessMigration/)]);
  });

  test.each([
    ['the read path too early', () => ({ ingestersRolledOutAt: ago(2 * HOUR), writePathRolledOutAt: ago(HOUR) }),
      /writePathRolledOutAt=".*" makes the read path zone-aware too early: not before .*query_ingesters_within 3 hours/],
    ['a time in the future', () => ({ ingestersRolledOutAt: new Date(Date.now() + HOUR).toISOString() }), /ingestersRolledOutAt=".*" is in the future/],
    ['the write path before the ingesters', () => ({ ingestersRolledOutAt: ago(4 * HOUR), writePathRolledOutAt: ago(5 * HOUR) }), /must follow direct.zoneAwarenessMigration.ingestersRolledOutAt/],
    ['the write path without the ingesters', () => ({ writePathRolledOutAt: ago(5 * HOUR) }), /must follow .*ingestersRolledOutAt \(unset\)/],
    ['not RFC 3339', () => ({ ingestersRolledOutAt: '2026-11-27 10:00' }), /must be an RFC 3339 time/],
    ['not a time', () => ({ ingestersRolledOutAt: '2026-13-45T99:00:00Z' }), /must be an RFC 3339 time/],
  ])('refused: %s', (_, migration, message) => {
    expect(() => direct({ ...labels, zoneAwarenessMigration: migration() })).toThrow(message);
  });

  test('refused with per-zone StatefulSets: new ingesters would replace the running ones and their data', () => {
    expect(() => direct({ zoneAwarenessMigration: {} })).toThrow(/direct.zoneAwarenessMigration=.* needs the running ingesters to stay .*ZoneSource.podTopologyLabels/);
  });
});
