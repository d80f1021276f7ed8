import { Size } from 'cdk8s';
import {
  IngesterRollout, LokiComponent, LokiStackSize, ZoneAnnotation, ZoneAwareLokiStack, ZoneInventory, ZoneReport,
  ZoneSource, ZoneTopology,
} from '../../src';
import { analyzeTraffic } from '../../src/check/traffic/analyze-traffic';
import { ZONE_LOCAL_OVERLOAD } from '../../src/check/traffic/traffic-findings';
import { readManifests } from '../../src/check/workloads';
import { ZONE_LOCAL_TRAFFIC_GAP } from '../../src/check/zone-local-traffic';
import { TrafficPolicy } from '../../src/traffic/policy';
import { zoneWiring } from '../../src/zone-source/zone-source';
import { only, testChart } from '../util';
import { topology, at135, operatorStorage, controller, operator, direct, container } from './loki-fixtures';

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
      // 7 with maxSkew 2 reach every zone, but a zone may hold one of them: it would take 7/3 of an even share
      expect(traffic(direct({ topology: at135, replicas: 7, maxSkew: 2 }).manifests)['loki-distributor']).toBeUndefined();
    });

    const inventory = ZoneInventory.equalNodes(topology.zones, 3);
    /** The traffic report of Service `name` of `m`, with `trafficDistribution: PreferSameZone` if `asked`. */
    const reported = (m: any[], name: string, asked: boolean) => {
      const objects = m.map((o) => (asked && o.kind === 'Service' && o.metadata.name === name
        ? { ...o, spec: { ...o.spec, trafficDistribution: 'PreferSameZone' } } : o));
      const report = analyzeTraffic(readManifests(objects, inventory.topologyKey), inventory);
      return report.services.find((s) => s.name === name)!;
    };

    test.each([1, 2])('maxSkew %i, 2 to 9 replicas: a policy exactly where the traffic report finds it safe', (maxSkew) => {
      for (let replicas = 2; replicas <= 9; replicas++) {
        const m = direct({ topology: at135, replicas, maxSkew, gateway: true }).manifests;
        for (const name of ZONE_LOCAL.filter((n) => n !== 'loki-ruler')) {
          const asIs = reported(m, name, false);
          // the report's judgement of PreferSameZone on this Service, whether the construct set it or not
          const withPolicy = reported(m, name, asIs.policy === TrafficPolicy.NONE);
          const unsafe = withPolicy.findings
            .some((f) => [ZONE_LOCAL_TRAFFIC_GAP, ZONE_LOCAL_OVERLOAD].includes(f.rule));
          const expected = unsafe ? TrafficPolicy.NONE : TrafficPolicy.PREFER_SAME_ZONE;
          expect([replicas, name, asIs.policy]).toEqual([replicas, name, expected]);
        }
      }
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
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        // Kubernetes 1.35: a shifted zone's tainted nodes leave the skew
        nodeTaintsPolicy: 'Honor',
        minDomains: 2,
        matchLabelKeys: ['controller-revision-hash'],
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
