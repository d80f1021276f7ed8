import { Chart, Size, Testing } from 'cdk8s';
import * as fc from 'fast-check';
import { parse } from 'yaml';
import {
  IngesterRollout, LokiComponent, LokiDirectOptions, LokiObjectStorageType, LokiOperatorOptions, LokiStackSize,
  ZoneAnnotation, ZoneAwareLokiStack, ZoneAwareLokiStackProps, ZoneController, ZoneInventory, ZoneReport, ZoneSource,
  ZoneTopology,
} from '../../src';
import { ZONE_LOCAL_TRAFFIC_GAP } from '../../src/check/zone-local-traffic';
import { ZONE_LABEL } from '../../src/contract/labels';
import { OPERATOR_INGESTERS } from '../../src/loki/options';
import { writeSurvival } from '../../src/loki/replication';
import { scaleMaxUnavailable } from '../../src/rollout/max-unavailable';
import { planUpdate, RolloutPod, RolloutState } from '../../src/rollout/update-plan';
import { warningsOf } from '../../src/shared/warnings';
import { fewestZonesWithPods } from '../../src/topology/spread';
import { zoneWiring } from '../../src/zone-source/zone-source';
import { only, synth, testChart } from '../util';

const topology = new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] });
const at135 = new ZoneTopology({ zones: topology.zones, kubernetesVersion: '1.35' });
const operatorStorage = { secretName: 'loki-s3', type: LokiObjectStorageType.S3 };
const controller = new ZoneController(testChart(), 'zones', { image: 'ghcr.io/example/cdk8s-zones-controller:0.1.0' });

/** The props both outputs share, and those of one output, as one flat object (split by `split`). */
type Common = Omit<ZoneAwareLokiStackProps, 'operator' | 'direct'>;
const COMMON: (keyof Common)[] = ['topology', 'replicationFactor', 'maxSkew', 'name', 'namespace'];

function split<O>(flat: Partial<Common> & Partial<O>): [Partial<Common>, Partial<O>] {
  const common: any = {};
  const rest: any = {};
  for (const [k, v] of Object.entries(flat)) (COMMON.includes(k as keyof Common) ? common : rest)[k] = v;
  return [common, rest];
}

function operator(props: Partial<Common & LokiOperatorOptions> = {}): any[] {
  const chart = testChart();
  const [common, options] = split<LokiOperatorOptions>(props);
  new ZoneAwareLokiStack(chart, 'loki', {
    topology,
    namespace: 'logs',
    name: 'loki',
    ...common,
    operator: { objectStorage: operatorStorage, storageClassName: 'gp3', ...options },
  });
  return synth(chart);
}

function direct(props: Partial<Common & LokiDirectOptions> = {}): { manifests: any[]; warnings: string[] } {
  const chart = testChart();
  const [common, options] = split<LokiDirectOptions>(props);
  new ZoneAwareLokiStack(chart, 'loki', {
    topology,
    namespace: 'logs',
    name: 'loki',
    ...common,
    direct: { objectStorage: { bucket: 'logs', endpoint: 'minio:9000', credentialsSecretName: 'minio' }, ...options },
  });
  return { manifests: synth(chart), warnings: warningsOf(chart) };
}

function container(workload: any): any {
  return workload.spec.template.spec.containers[0];
}

describe('operator output', () => {
  test('a LokiStack with spec.replication (factor and one zone per topology key), never spec.replicationFactor', () => {
    const stack = only(operator({ extraTopologyKeys: ['topology.kubernetes.io/region'], maxSkew: 2, size: LokiStackSize.ONE_X_MEDIUM }), 'LokiStack');
    expect(stack.apiVersion).toBe('loki.grafana.com/v1');
    expect(stack.spec).toEqual({
      size: '1x.medium',
      storage: { secret: { name: 'loki-s3', type: 's3' } },
      storageClassName: 'gp3',
      // 1x.medium runs 3, but with maxSkew 2 three ingesters may fill only 2 zones: 5 keep every zone occupied
      template: { ingester: { replicas: 5 } },
      replication: {
        factor: 3,
        zones: [{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 2 }, { topologyKey: 'topology.kubernetes.io/region', maxSkew: 2 }],
      },
    });
    expect(stack.spec.replicationFactor).toBeUndefined();
  });

  test('snapshot', () => {
    expect(operator()).toMatchSnapshot();
  });

  test.each([
    [{ objectStorage: undefined }, /operator.objectStorage=undefined is required: a LokiOperatorStorage/],
    [{ storageClassName: undefined }, /operator.storageClassName=undefined is required/],
    [{ zoneSource: ZoneSource.podTopologyLabels() }, /operator.zoneSource=.* is not a prop of LokiOperatorOptions/],
    [{ extraTopologyKeys: ['topology.kubernetes.io/zone'] }, /operator.extraTopologyKeys\[0\]="topology.kubernetes.io\/zone" repeats a topology key/],
  ])('refuses %p', (props, message) => {
    expect(() => operator(props as any)).toThrow(message);
  });
});

describe('direct output', () => {
  test('snapshot (per-zone StatefulSets, ruler and gateway)', () => {
    expect(direct({ ruler: true, gateway: true }).manifests).toMatchSnapshot();
  });

  test('NetworkPolicies: components admit one another on every port, clients on HTTP and gRPC; the gateway admits clients', () => {
    const members = { 'cdk8s-zones.dev/loki-memberlist': 'loki' };
    const gatewayPods = { 'app.kubernetes.io/instance': 'loki', 'app.kubernetes.io/component': 'gateway' };
    const ports = (...names: string[]) => names.map((port) => ({ protocol: 'TCP', port }));
    const agents = { namespaceLabels: { 'kubernetes.io/metadata.name': 'agents' } };
    const { manifests } = direct({ gateway: true, networkPolicy: { clients: [agents] } });
    const agentPeer = { namespaceSelector: { matchLabels: agents.namespaceLabels }, podSelector: { matchLabels: {} } };
    expect(only(manifests, 'NetworkPolicy', 'loki').spec).toEqual({
      podSelector: { matchLabels: members },
      policyTypes: ['Ingress'],
      ingress: [
        { ports: ports('http', 'grpc', 'memberlist'), from: [{ podSelector: { matchLabels: members } }] },
        { ports: ports('http', 'grpc'), from: [agentPeer, { podSelector: { matchLabels: gatewayPods } }] },
      ],
    });
    expect(only(manifests, 'NetworkPolicy', 'loki-gateway').spec).toEqual({
      podSelector: { matchLabels: gatewayPods }, policyTypes: ['Ingress'], ingress: [{ ports: ports('http'), from: [agentPeer] }],
    });
    // every component pod carries the member label the policy selects by
    for (const w of manifests.filter((o) => ['Deployment', 'StatefulSet'].includes(o.kind) && !o.metadata.name.endsWith('gateway'))) {
      expect(w.spec.template.metadata.labels).toMatchObject(members);
    }
    expect(direct({ networkPolicy: { enabled: false } }).manifests.filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
  });

  test('every container has a memory limit; the ingesters\' governing Service is headless', () => {
    const { manifests } = direct({ gateway: true, ruler: true });
    for (const w of manifests.filter((o) => ['Deployment', 'StatefulSet'].includes(o.kind))) {
      for (const c of [...w.spec.template.spec.containers, ...(w.spec.template.spec.initContainers ?? [])]) {
        const limit = [w.metadata.name, c.name, c.resources.limits?.memory];
        expect(limit).toEqual([w.metadata.name, c.name, expect.any(String)]);
      }
      if (w.kind === 'StatefulSet') expect(only(manifests, 'Service', w.spec.serviceName).spec.clusterIP).toBe('None');
    }
  });

  test('the Loki config enables zone awareness, reads the zone from the environment and sets the replication factor', () => {
    const config = only(direct().manifests, 'ConfigMap', 'loki-config').data['config.yaml'];
    expect(config).toContain('zone_awareness_enabled: true');
    expect(config).toContain('instance_availability_zone: ${INSTANCE_AVAILABILITY_ZONE}');
    expect(config).toMatch(/lifecycler:\n\s+ring:\n\s+replication_factor: 3/);
    expect(config).toMatch(/common:\n(\s+.*\n)*?\s+replication_factor: 3/);
    expect(config).toContain('- loki-memberlist:7946');
    expect(config).toContain('bucketnames: logs');
  });

  describe('Services keep clients in their zone', () => {
    const traffic = (m: any[]) => Object.fromEntries(m
      .filter((o) => o.kind === 'Service')
      .map((o) => [o.metadata.name, o.spec.trafficDistribution]));
    const ZONE_LOCAL = ['loki-distributor', 'loki-gateway', 'loki-querier', 'loki-query-frontend', 'loki-ruler'];

    test.each([['1.35', 'PreferSameZone'], ['1.34.2', 'PreferSameZone'], ['v1.33.0', 'PreferClose'], ['1.31', 'PreferClose']])(
      'on Kubernetes %s: %s on the Services clients and components call through a cluster IP, nothing on the headless ones or the compactor\'s',
      (kubernetesVersion, value) => {
        const versioned = new ZoneTopology({ zones: topology.zones, kubernetesVersion });
        const m = direct({ topology: versioned, ruler: true, gateway: true }).manifests;
        const byName = traffic(m);
        expect(Object.keys(byName).sort()).toEqual([...ZONE_LOCAL, 'loki-compactor', 'loki-index-gateway', 'loki-ingester', 'loki-memberlist', 'loki-query-frontend-headless'].sort());
        for (const [name, v] of Object.entries(byName)) {
          expect([name, v]).toEqual([name, ZONE_LOCAL.includes(name) ? value : undefined]);
        }
        const zoneLocal = m.filter((x) => x.kind === 'Service' && x.spec.trafficDistribution);
        for (const o of zoneLocal) expect(o.spec.clusterIP).toBeUndefined();
      });

    test('the queriers\' workers reach every frontend through the headless Service', () => {
      const m = direct().manifests;
      expect(only(m, 'Service', 'loki-query-frontend-headless').spec).toMatchObject({ clusterIP: 'None', selector: only(m, 'Service', 'loki-query-frontend').spec.selector });
      expect(only(m, 'ConfigMap', 'loki-config').data['config.yaml']).toContain('frontend_address: loki-query-frontend-headless:9095');
    });

    test('none on an older or unknown version, a custom zone key (the EndpointSlice controller reads topology.kubernetes.io/zone), or too few replicas for every zone', () => {
      for (const t of [topology, new ZoneTopology({ zones: topology.zones, kubernetesVersion: '1.30' }),
        new ZoneTopology({ zones: topology.zones, kubernetesVersion: '1.35', topologyKey: 'example.com/zone' })]) {
        const distributions = Object.values(traffic(direct({ topology: t, gateway: true }).manifests));
        expect(distributions.filter((v) => v !== undefined)).toEqual([]);
      }
      // 2 replicas over 3 zones leave a zone without one; 5 with maxSkew 2 reach every zone, 4 do not
      const twoReplicas = Object.values(traffic(direct({ topology: at135, replicas: 2, gateway: true }).manifests));
      expect(twoReplicas.filter((v) => v !== undefined)).toEqual([]);
      expect(traffic(direct({ topology: at135, replicas: 5, maxSkew: 2 }).manifests)['loki-distributor']).toBe('PreferSameZone');
      expect(traffic(direct({ topology: at135, replicas: 4, maxSkew: 2 }).manifests)['loki-distributor']).toBeUndefined();
    });

    test('the zone check finds no zone without an endpoint behind any of them', () => {
      const m = direct({ topology: at135, ruler: true, gateway: true }).manifests;
      const report = ZoneReport.analyze(m, ZoneInventory.equalNodes(topology.zones, 3));
      expect(report.data.findings.filter((f) => f.rule === ZONE_LOCAL_TRAFFIC_GAP)).toEqual([]);
      expect(Object.values(traffic(m)).filter((v) => v !== undefined)).toHaveLength(ZONE_LOCAL.length);
    });
  });

  test('every component in microservices mode; ruler and gateway only when asked', () => {
    const names = (m: any[]) => m.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet').map((o) => o.metadata.name).sort();
    expect(names(direct().manifests)).toEqual([
      'loki-compactor', 'loki-distributor', 'loki-index-gateway', 'loki-ingester-zone-a', 'loki-ingester-zone-b', 'loki-ingester-zone-c',
      'loki-querier', 'loki-query-frontend',
    ]);
    expect(names(direct({ ruler: true, gateway: true }).manifests)).toContain('loki-ruler');
    expect(names(direct({ ruler: true, gateway: true }).manifests)).toContain('loki-gateway');
  });

  test('every zone-aware Deployment spreads over zones (DoNotSchedule, minDomains, matchLabelKeys) and hosts', () => {
    const components = [
      LokiComponent.DISTRIBUTOR, LokiComponent.QUERIER, LokiComponent.QUERY_FRONTEND, LokiComponent.INDEX_GATEWAY,
    ];
    for (const c of components) {
      const tsc = only(direct().manifests, 'Deployment', `loki-${c}`).spec.template.spec.topologySpreadConstraints;
      expect(tsc).toEqual([
        {
          topologyKey: 'topology.kubernetes.io/zone',
          maxSkew: 1,
          whenUnsatisfiable: 'DoNotSchedule',
          minDomains: 3,
          labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'loki', 'app.kubernetes.io/component': c } },
          matchLabelKeys: ['pod-template-hash'],
        },
        {
          topologyKey: 'kubernetes.io/hostname',
          maxSkew: 1,
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'loki', 'app.kubernetes.io/component': c } },
          matchLabelKeys: ['pod-template-hash'],
        },
      ]);
    }
  });

  test('restricted Pod Security, probes and resource requests on every container', () => {
    for (const w of direct({ ruler: true, gateway: true }).manifests.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')) {
      const spec = w.spec.template.spec;
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(c.resources.requests).toBeDefined();
      }
      expect(spec.containers[0].readinessProbe).toBeDefined();
      expect(spec.containers[0].livenessProbe).toBeDefined();
    }
  });

  describe('zone sources', () => {
    test('perZoneStatefulSets: one ingester StatefulSet per zone, pinned by node affinity, zone written in its args', () => {
      const { manifests } = direct({ ingesterReplicasPerZone: 2 });
      for (const zone of topology.zones) {
        const sts = only(manifests, 'StatefulSet', `loki-ingester-${zone}`);
        expect(sts.spec.replicas).toBe(2);
        const spec = sts.spec.template.spec;
        expect(spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([
          { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] },
        ]);
        expect(container(sts).args).toEqual([
          '-config.file=/etc/loki/config.yaml', '-target=ingester', '-config.expand-env=true',
          `-common.storage.ring.instance-availability-zone=${zone}`,
        ]);
        expect(spec.initContainers).toBeUndefined();
        // Pinned to one zone: a zone spread would cap each StatefulSet at maxSkew pods; hosts only.
        expect(spec.topologySpreadConstraints.map((t: any) => t.topologyKey)).toEqual(['kubernetes.io/hostname']);
      }
    });

    test('podTopologyLabels: the zone comes from the pod label through the downward API; no init container, no controller', () => {
      const { manifests } = direct({ zoneSource: ZoneSource.podTopologyLabels(), topology: at135 });
      const sts = only(manifests, 'StatefulSet', 'loki-ingester');
      expect(sts.spec.replicas).toBe(3);
      expect(container(sts).env).toContainEqual({
        name: 'INSTANCE_AVAILABILITY_ZONE', valueFrom: { fieldRef: { fieldPath: "metadata.labels['topology.kubernetes.io/zone']" } },
      });
      expect(container(sts).args).toEqual(['-config.file=/etc/loki/config.yaml', '-target=ingester', '-config.expand-env=true']);
      expect(sts.spec.template.spec.initContainers).toBeUndefined();
      expect(sts.spec.template.metadata.labels[ZoneAnnotation.OPT_IN_LABEL]).toBeUndefined();
      expect(sts.spec.template.spec.topologySpreadConstraints[0]).toMatchObject({
        topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 3, matchLabelKeys: ['controller-revision-hash'],
      });
    });

    test('controller: opt-in label, init container of the controller image on a downward-API file, env from the annotation', () => {
      const { manifests } = direct({ zoneSource: ZoneSource.controller(controller) });
      const sts = only(manifests, 'StatefulSet', 'loki-ingester');
      const pod = sts.spec.template;
      expect(pod.metadata.labels[ZoneAnnotation.OPT_IN_LABEL]).toBe(ZoneAnnotation.OPT_IN_VALUE);
      expect(pod.metadata.annotations[ZoneAnnotation.KEYS_ANNOTATION]).toBe('topology.kubernetes.io/zone');
      const annotationRef = { fieldPath: `metadata.annotations['${ZoneAnnotation.VALUE_ANNOTATION}']` };
      expect(container(sts).env).toContainEqual({ name: 'INSTANCE_AVAILABILITY_ZONE', valueFrom: { fieldRef: annotationRef } });
      expect(container(sts).args).toContain('-config.expand-env=true');
      expect(pod.spec.volumes).toContainEqual({
        name: 'zone',
        downwardAPI: { items: [{ path: 'zone', fieldRef: annotationRef }] },
      });
      expect(pod.spec.initContainers).toHaveLength(1);
      expect(pod.spec.initContainers[0]).toMatchObject({
        name: 'wait-for-zone',
        image: controller.image, // never the Loki image: it is distroless (grafana/loki#24143)
        command: ['cdk8s-zones-controller', 'wait-for-zone', '--file', '/etc/cdk8s-zones/zone', '--timeout', '600'],
        volumeMounts: [{ name: 'zone', mountPath: '/etc/cdk8s-zones', readOnly: true }],
      });
      // The file it waits for is the downward-API projection of the annotation the env var reads.
      expect(pod.spec.volumes.find((v: any) => v.name === 'zone').downwardAPI.items[0].path).toBe('zone');
      // Compactor and gateway take no part in a ring: no zone wiring.
      const compactor = only(manifests, 'Deployment', 'loki-compactor');
      expect(compactor.spec.template.spec.initContainers).toBeUndefined();
      expect(container(compactor).env).toContainEqual({ name: 'AWS_ACCESS_KEY_ID', valueFrom: { secretKeyRef: { name: 'minio', key: 'AWS_ACCESS_KEY_ID' } } });
      expect(container(compactor).env.map((e: any) => e.name)).not.toContain('INSTANCE_AVAILABILITY_ZONE');
    });
  });

  test('filesystem storage warns that it is only for tests', () => {
    const { manifests, warnings } = direct({ objectStorage: undefined, ingesterRollout: IngesterRollout.PARTITIONED });
    expect(only(manifests, 'ConfigMap', 'loki-config').data['config.yaml']).toContain('chunks_directory: /var/loki/storage/chunks');
    expect(warnings).toEqual([expect.stringMatching(/no direct.objectStorage: .* only for tests/)]);
  });
});

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

describe('storage classes per zone', () => {
  test('direct output: each zone\'s ingester StatefulSet claims its zone\'s class; zones not named get storageClassName', () => {
    const { manifests } = direct({
      ingesterStorage: { size: Size.gibibytes(10), storageClassName: 'standard', storageClassNamePerZone: { 'zone-b': 'ssd-b' } },
    });
    const ingesters = manifests.filter((m) => m.kind === 'StatefulSet');
    expect(ingesters.map((m) => [m.metadata.name, m.spec.volumeClaimTemplates[0].spec.storageClassName]))
      .toEqual([['loki-ingester-zone-a', 'standard'], ['loki-ingester-zone-b', 'ssd-b'], ['loki-ingester-zone-c', 'standard']]);
  });

  test.each([
    ['a zone outside the topology', () => direct({ ingesterStorage: { size: Size.gibibytes(10), storageClassNamePerZone: { 'zone-d': 'ssd' } } }),
      /direct.ingesterStorage.storageClassNamePerZone key="zone-d" is not one of the topology's zones/],
    ['ingesters not of one zone each', () => direct({
      zoneSource: ZoneSource.podTopologyLabels(),
      topology: at135,
      ingesterStorage: { size: Size.gibibytes(10), storageClassNamePerZone: { 'zone-a': 'ssd' } },
    }),
    /direct.ingesterStorage.storageClassNamePerZone=\{"zone-a":"ssd"\} needs ingesters of one zone each: ZoneSource.perZoneStatefulSets\(\)/],
  ])('refused: %s', (_, build, message) => {
    expect(build).toThrow(message);
  });
});

describe('bad input', () => {
  test.each([
    ['RF > zones', { replicationFactor: 4 }, /replicationFactor=4 .* Loki silently shrinks each stream's replicas to the 3 zones while the write quorum stays 3: use replicationFactor <= 3/],
    ['RF < 1', { replicationFactor: 0 }, /replicationFactor=0 must be an integer from 1 to 2147483647/],
    ['1 zone with RF > 1', { topology: new ZoneTopology({ zones: ['only'] }), replicationFactor: 2 }, /replicationFactor=2 .* Loki needs 3 or more zones to survive losing one \(the topology has 1\)/],
    ['RF 2 over 2 zones', { topology: new ZoneTopology({ zones: ['a', 'b'] }), replicationFactor: 2 }, /replicationFactor=2 .* does not keep writes going with a zone down: .* leaves 1; the quorum \(at least 2\) needs 2/],
    ['RF 1', { replicationFactor: 1 }, /replicationFactor=1 .* use replicationFactor 3 or more/],
    ['maxSkew < 1', { maxSkew: 0 }, /maxSkew=0 must be an integer from 1 to 2147483647/],
    ['ingesters per zone < 1', { ingesterReplicasPerZone: 0 }, /direct.ingesterReplicasPerZone=0 must be an integer from 1 to 2147483647: a zone without ingesters/],
    ['a spread that may leave a zone without ingesters', { zoneSource: ZoneSource.podTopologyLabels(), maxSkew: 2 },
      /replicationFactor=3 with 1 ingester\(s\) per zone and maxSkew 2 .* 3 ingester\(s\) may occupy only 2 of the 3 zones.* Use maxSkew 1/],
    ['podTopologyLabels before 1.35', {
      zoneSource: ZoneSource.podTopologyLabels(),
      topology: new ZoneTopology({ zones: topology.zones, kubernetesVersion: '1.34' }),
    },
    /needs Kubernetes >= 1.35 .* the topology's kubernetesVersion is 1.34/],
    ['podTopologyLabels with a custom key', {
      zoneSource: ZoneSource.podTopologyLabels(), topology: new ZoneTopology({ zones: ['a', 'b', 'c'], topologyKey: 'example.com/rack' }),
    }, /only copies topology.kubernetes.io\/zone .* not the topology key "example.com\/rack"/],
  ])('%s', (_, props, message) => {
    expect(() => direct(props as any)).toThrow(message);
    expect(() => direct(props as any)).toThrow(/^ZoneAwareLokiStack 'test\/loki': /);
  });

  test('exactly one output: operator or direct', () => {
    const chart = () => testChart();
    expect(() => new ZoneAwareLokiStack(chart(), 'loki', { topology, namespace: 'logs' }))
      .toThrow("ZoneAwareLokiStack 'test/loki': operator=undefined must be set, or direct must: operator: { objectStorage, storageClassName } for a LokiStack");
    expect(() => new ZoneAwareLokiStack(chart(), 'loki', {
      topology, namespace: 'logs', operator: { objectStorage: operatorStorage, storageClassName: 'gp3' }, direct: {},
    })).toThrow("ZoneAwareLokiStack 'test/loki': direct={} is set beside operator: set one of them");
  });

  test('controller zone source without a controller', () => {
    expect(() => ZoneSource.controller(undefined as any)).toThrow(/ZoneSource.controller: zoneController=undefined is required: a ZoneController of this app, or ZoneController.fromInstalled/);
  });

  test('per-zone StatefulSets for a zone missing from the topology', () => {
    expect(() => zoneWiring({
      where: 'X',
      source: ZoneSource.perZoneStatefulSets(),
      topology,
      envName: 'Z',
      zone: 'zone-d',
      initSecurityContext: {},
      initResources: {},
    })).toThrow(/X: zone="zone-d" is not one of the topology's zones \[zone-a, zone-b, zone-c\]/);
  });
});

/** Every count of ingesters per zone that a hard zone spread of maxSkew allows (skew to empty zones included). */
function placements(ingesters: number, zones: number, maxSkew: number): number[][] {
  const found: number[][] = [];
  const place = (left: number, counts: number[]) => {
    if (counts.length === zones) {
      if (left === 0 && Math.max(...counts) - Math.min(...counts) <= maxSkew) found.push(counts);
      return;
    }
    for (let n = 0; n <= left; n++) place(left - n, [...counts, n]);
  };
  place(ingesters, []);
  return found;
}

describe('operator sizes x zones x replication factor', () => {
  /**
   * Brute force, independent of the construct's formula: every placement of `ingesters` over the zones that
   * a hard zone spread of maxSkew allows, every stream replica set dskit can pick (one ingester per occupied
   * zone, up to RF), every zone lost: the write quorum floor(RF/2)+1 must remain.
   */
  function survivesEveryPlacement(ingesters: number, zones: number, maxSkew: number, rf: number): boolean {
    const subsets = (items: number[], k: number): number[][] =>
      (k === 0 ? [[]] : items.flatMap((x, i) => subsets(items.slice(i + 1), k - 1).map((rest) => [x, ...rest])));
    return placements(ingesters, zones, maxSkew).every((counts) => {
      const occupied = counts.map((n, z) => (n > 0 ? z : -1)).filter((z) => z >= 0);
      const streams = subsets(occupied, Math.min(rf, occupied.length));
      const quorum = Math.floor(rf / 2) + 1;
      return streams.every((stream) => counts.every((_, lost) => stream.filter((z) => z !== lost).length >= quorum));
    });
  }

  const sizes = Object.values(LokiStackSize);
  const cases = sizes.flatMap((size) => [2, 3, 4].flatMap((zones) => [1, 2, 3, 4, 5].flatMap((rf) =>
    [undefined, 1, 2, 3, 4, 6].flatMap((ingesterReplicas) =>
      [1, 2].map((maxSkew) => ({ size, zones, rf, ingesterReplicas, maxSkew }))))));

  test.each(cases)('%j: accepted exactly when every placement keeps writing with a zone down, refused saying why', ({ size, zones, rf, ingesterReplicas, maxSkew }) => {
    const topo = new ZoneTopology({ zones: Array.from({ length: zones }, (_, i) => `z${i}`) });
    let stack: any;
    let error: Error | undefined;
    try {
      stack = only(operator({ topology: topo, size, replicationFactor: rf, ingesterReplicas, maxSkew }), 'LokiStack');
    } catch (e) {
      error = e as Error;
    }
    if (stack) {
      const ingesters = stack.spec.template.ingester.replicas;
      expect(survivesEveryPlacement(ingesters, zones, maxSkew, rf)).toBe(true);
      if (ingesterReplicas !== undefined) expect(ingesters).toBe(ingesterReplicas);
      // The default is the size's own count unless that one would stop writes with a zone down.
      const sized = OPERATOR_INGESTERS[size];
      const defaultSurvives = ingesterReplicas === undefined && survivesEveryPlacement(sized, zones, maxSkew, rf);
      if (defaultSurvives) expect(ingesters).toBe(sized);
      return;
    }
    // Refused: the given count really loses writes; without one, no count from the size's up could help.
    const counts = ingesterReplicas !== undefined ? [ingesterReplicas]
      : Array.from({ length: zones * maxSkew + 3 }, (_, i) => OPERATOR_INGESTERS[size] + i);
    expect(counts.filter((n) => survivesEveryPlacement(n, zones, maxSkew, rf))).toEqual([]);
    expect(error!.message).toMatch(/^ZoneAwareLokiStack 'test\/loki': (replicationFactor|operator.ingesterReplicas)=\d+ with /);
    expect(error!.message).toContain(`size ${size}`);
    expect(error!.message).toContain(`replicationFactor ${rf}`);
    expect(error!.message).toContain(`over ${zones} zone(s)`);
    expect(error!.message).toMatch(/ingester/);
    expect(error!.message).toMatch(/Set operator.ingesterReplicas to \d+ or more|use replicationFactor/);
  });

  test('the default for replicationFactor 3 over 3 zones survives for every size (1x.small runs 2 ingesters: 3 are set)', () => {
    for (const size of sizes) {
      const ingesters = only(operator({ size }), 'LokiStack').spec.template.ingester.replicas;
      expect(survivesEveryPlacement(ingesters, 3, 1, 3)).toBe(true);
    }
    expect(only(operator({ size: LokiStackSize.ONE_X_SMALL }), 'LokiStack').spec.template.ingester.replicas).toBe(3);
    expect(only(operator({ size: LokiStackSize.ONE_X_MEDIUM }), 'LokiStack').spec.template.ingester.replicas).toBe(3);
  });

  test('two ingesters over three zones with replicationFactor 3 is refused, naming size, ingesters, zones and factor', () => {
    expect(() => operator({ size: LokiStackSize.ONE_X_SMALL, ingesterReplicas: 2 })).toThrow(
      "ZoneAwareLokiStack 'test/loki': operator.ingesterReplicas=2 with 2 ingesters (size 1x.small), replicationFactor 3 and maxSkew 1 over 3 zone(s) " +
      '[zone-a, zone-b, zone-c] does not keep writes going with a zone down: 2 ingester(s) may occupy only 2 of the 3 zones, so a stream ' +
      'may have only 2 replica(s); losing zone zone-a (1 of 2 replicas) leaves 1; the quorum (at least 2) needs 2. Set operator.ingesterReplicas to 3 or more');
  });
});

describe('write survival (survival math)', () => {
  test('property: the fewest zones holding ingesters is the fewest over every placement the spread allows', () => {
    const ingesterCounts = fc.integer({ min: 1, max: 12 });
    const zoneCounts = fc.integer({ min: 1, max: 5 });
    const skews = fc.integer({ min: 1, max: 4 });
    fc.assert(fc.property(ingesterCounts, zoneCounts, skews, (n, zones, skew) => {
      const occupied = placements(n, zones, skew).map((counts) => counts.filter((c) => c > 0).length);
      expect(fewestZonesWithPods(n, zones, skew)).toBe(Math.min(...occupied));
    }));
  });

  test('a zone outage leaves rf-1 replicas of each stream: enough for the quorum exactly when rf >= 3', () => {
    for (let rf = 1; rf <= 7; rf++) {
      const zones = Array.from({ length: rf }, (_, i) => `z${i}`);
      expect(writeSurvival(rf, zones, rf).survives).toBe(rf >= 3);
      expect(rf - 1 >= Math.floor(rf / 2) + 1).toBe(rf >= 3);
    }
  });
});

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
