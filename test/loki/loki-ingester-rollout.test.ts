import { Chart, Testing } from 'cdk8s';
import { IngesterRollout, LokiDirectOptions, ZoneAwareLokiStack, ZoneController, ZoneSource } from '../../src';
import { ZONE_LABEL } from '../../src/contract/labels';
import { scaleMaxUnavailable } from '../../src/rollout/max-unavailable';
import { planUpdate, RolloutPod, RolloutState } from '../../src/rollout/update-plan';
import { warningsOf } from '../../src/shared/warnings';
import { only, synth } from '../util';
import { topology, at135, controller, operator, direct } from './loki-fixtures';

describe('direct output: how the ingesters roll out a change', () => {
  const IMAGE = 'ghcr.io/example/cdk8s-zones-controller:0.1.0';
  /**
   * The stack in one chart, rolled by the ZoneController of another chart of the same app when `controllerProps` are
   * given.
   */
  function app(props: Partial<LokiDirectOptions>, controllerProps?: object, zones = topology) {
    const a = Testing.app();
    const platform = new Chart(a, 'platform');
    const rolling = controllerProps && new ZoneController(platform, 'controller', { image: IMAGE, ...controllerProps });
    const chart = new Chart(a, 'logs', { disableResourceNameHashes: true });
    new ZoneAwareLokiStack(chart, 'loki', {
      topology: zones,
      namespace: 'logs',
      name: 'loki',
      direct: {
        controller: rolling,
        ingesterReplicasPerZone: 2,
        objectStorage: { bucket: 'logs', endpoint: 'minio:9000', credentialsSecretName: 'minio' },
        ...props,
      },
    });
    return { a, chart, platform };
  }
  const ingesters = (objects: any[]) => objects.filter((o) => o.kind === 'StatefulSet');
  /**
   * The batches planUpdate deletes for `spec` over the StatefulSets' pods, each replaced by a Ready pod of the new
   * revision.
   */
  function wavesOf(spec: any, statefulSets: any[]): string[][] {
    let pods: RolloutPod[] = statefulSets.flatMap((sts) => Array.from({ length: sts.spec.replicas }, (_, i) => ({
      name: `${sts.metadata.name}-${i}`,
      order: i,
      zone: sts.spec.template.metadata.labels[ZONE_LABEL],
      revision: 'old',
      ready: true,
      terminating: false,
    })));
    const maxUnavailable = scaleMaxUnavailable(spec.maxUnavailable, pods.length, 'down');
    const waves: string[][] = [];
    let state: RolloutState | undefined;
    for (;;) {
      const d = planUpdate({
        pods,
        replicas: pods.length,
        updateRevision: 'new',
        maxUnavailable,
        exponentialFactor: spec.exponentialFactor,
        state,
        otherZonesReady: true,
      });
      if (d.action !== 'delete') return waves;
      waves.push(d.pods);
      state = d.state;
      pods = pods.map((p) => (d.pods.includes(p.name) ? { ...p, revision: 'new' } : p));
    }
  }

  test('with a ZoneController of the app: OnDelete, one ZoneAwareUpdate over every zone\'s ingesters, /ready checked', () => {
    const { chart, platform } = app({}, { zoneAwareUpdate: true });
    const objects = synth(chart);
    expect(ingesters(objects).map((s) => [s.metadata.name, s.spec.updateStrategy]))
      .toEqual(['zone-a', 'zone-b', 'zone-c'].map((z) => [`loki-ingester-${z}`, { type: 'OnDelete' }]));
    const zau = only(objects, 'ZoneAwareUpdate');
    expect(zau.metadata).toMatchObject({ name: 'loki-ingester', namespace: 'logs' });
    expect(zau.spec).toEqual({
      statefulsets: ['loki-ingester-zone-a', 'loki-ingester-zone-b', 'loki-ingester-zone-c'],
      maxUnavailable: '100%',
      exponentialFactor: 0,
      readyCheck: { path: '/ready', port: 3100 },
    });
    // Planned as the controller plans it: one wave per zone, each the zone's every ingester.
    expect(wavesOf(zau.spec, ingesters(objects))).toEqual([
      ['loki-ingester-zone-a-1', 'loki-ingester-zone-a-0'],
      ['loki-ingester-zone-b-1', 'loki-ingester-zone-b-0'],
      ['loki-ingester-zone-c-1', 'loki-ingester-zone-c-0'],
    ]);
    // The ingesters' HTTP port admits the controller's pods (it asks /ready), and only the ingesters'.
    const policy = only(objects, 'NetworkPolicy', 'loki-ingester-rollout');
    const ingesterSelector = ingesters(objects)[0].spec.selector.matchLabels;
    expect(Object.entries(policy.spec.podSelector.matchLabels).every(([k, v]) => ingesterSelector[k] === v)).toBe(true);
    const controllerPods = only(synth(platform), 'Deployment').spec.template.metadata.labels;
    expect(policy.spec.ingress).toEqual([{
      ports: [{ protocol: 'TCP', port: 'http' }],
      from: [{
        namespaceSelector: expect.anything(),
        podSelector: {
          matchLabels: expect.objectContaining({ 'app.kubernetes.io/name': controllerPods['app.kubernetes.io/name'] }),
        },
      }],
    }]);
    expect(warningsOf(chart)).toEqual([]);
  });

  test('without one: a partitioned RollingUpdate that rolls nothing until a zone\'s partition is lowered, and a warning that says so', () => {
    const { chart } = app({});
    const objects = synth(chart);
    expect(ingesters(objects).map((s) => s.spec.updateStrategy))
      .toEqual(Array(3).fill({ type: 'RollingUpdate', rollingUpdate: { partition: 2 } }));
    expect(objects.filter((o) => o.kind === 'ZoneAwareUpdate')).toEqual([]);
    expect(warningsOf(chart)).toEqual([expect.stringContaining('no controller: the ingester StatefulSets use a partitioned RollingUpdate')]);
  });

  test('one StatefulSet for every zone (pod topology labels): the partition is all its pods; zone-aware it is a group of one', () => {
    const labels = ZoneSource.podTopologyLabels();
    const partitionedProps = { zoneSource: labels, ingesterRollout: IngesterRollout.PARTITIONED };
    const partitioned = synth(app(partitionedProps, undefined, at135).chart);
    expect(ingesters(partitioned).map((s) => s.spec.updateStrategy))
      .toEqual([{ type: 'RollingUpdate', rollingUpdate: { partition: 6 } }]);
    const rolled = synth(app({ zoneSource: ZoneSource.podTopologyLabels() }, { zoneAwareUpdate: true }, at135).chart);
    expect(only(rolled, 'ZoneAwareUpdate').spec.statefulsets).toEqual(['loki-ingester']);
  });

  test('PARTITIONED keeps the partition, without a warning', () => {
    const { chart } = app({ ingesterRollout: IngesterRollout.PARTITIONED });
    const objects = synth(chart);
    expect(objects.filter((o) => o.kind === 'ZoneAwareUpdate')).toEqual([]);
    expect(ingesters(objects)[0].spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 2 } });
    expect(warningsOf(chart)).toEqual([]);
  });

  test('ZONE_AWARE needs a controller running zoneAwareUpdate: of this app, or installed by another', () => {
    const needs = "ZoneAwareLokiStack 'logs/loki': direct.controller=undefined must name a controller running zone-aware-update (zoneAwareUpdate: true) to roll the ingesters zone by zone";
    expect(() => app({ ingesterRollout: IngesterRollout.ZONE_AWARE })).toThrow(needs);
    expect(() => app({ ingesterRollout: IngesterRollout.ZONE_AWARE }, { zoneAnnotator: true }))
      .toThrow("ZoneAwareLokiStack 'logs/loki': direct.controller=\"ZoneController 'platform/controller'\" must name a controller running zone-aware-update");
    const installed = ZoneController.fromInstalled({ workloadNamespaces: ['logs'], zoneAwareUpdate: true });
    const elsewhere = app({ controller: installed });
    expect(only(synth(elsewhere.chart), 'ZoneAwareUpdate').spec.statefulsets).toHaveLength(3);
    expect(warningsOf(elsewhere.chart)).toEqual([]);
  });

  test('the rollout props: the operator output has none; PARTITIONED refuses a controller', () => {
    expect(() => operator({ ingesterRollout: IngesterRollout.ZONE_AWARE } as any)).toThrow('operator.ingesterRollout="zone-aware" is not a prop of LokiOperatorOptions');
    expect(() => direct({ ingesterRollout: 'sideways' as any })).toThrow('direct.ingesterRollout="sideways" must be');
    expect(() => direct({ ingesterRollout: IngesterRollout.PARTITIONED, controller }))
      .toThrow("ZoneAwareLokiStack 'test/loki': direct.controller=\"ZoneController 'test/zones'\" names the controller that rolls the ingesters, but direct.ingesterRollout is IngesterRollout.PARTITIONED");
  });
});
