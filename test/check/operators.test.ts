/**
 * Operators' custom resources placed as their operators place them (src/check/operators.ts), and every other
 * object that runs pods listed as skipped with why.
 */
import { ZoneInventory, ZoneReport } from '../../src';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const check = (...objects: any[]) => ZoneReport.analyze(objects, ZoneInventory.equalNodes(['a', 'b', 'c'], 2));
const rules = (w: { findings: { rule: string }[] }) => w.findings.map((f) => f.rule).sort();

const requiredAntiAffinity = (key: string, labels: Record<string, string>) => ({
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: key, labelSelector: { matchLabels: labels } }],
  },
});
/** A hard zone spread over the pods labelled `labels`. */
const zoneSpread = (labels: Record<string, string>) => ({
  topologyKey: ZONE_KEY,
  maxSkew: 1,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: labels },
});
const promOperator = (kind: string, name: string, spec: any = {}) => ({
  apiVersion: 'monitoring.coreos.com/v1',
  kind,
  metadata: { name, namespace: 'monitoring' },
  spec,
});

describe('prometheus-operator', () => {
  test('a Prometheus of 2 replicas with required anti-affinity on the zone (the labels the operator gives its pods): one per zone, survives', () => {
    const w = check(promOperator('Prometheus', 'k8s', {
      replicas: 2, affinity: requiredAntiAffinity(ZONE_KEY, { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'k8s' }),
    })).workloads;
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({
      kind: 'Prometheus',
      namespace: 'monitoring',
      name: 'k8s',
      replicas: 2,
      survives: { a: true, b: true, c: true },
    });
    expect(w[0].perZone.a.worstCase).toBe(1);
  });

  test('defaults: one replica, one shard, nothing spreads it: single-replica', () => {
    const [w] = check(promOperator('Prometheus', 'k8s')).workloads;
    expect(w).toMatchObject({ replicas: 1, survives: { a: false } });
    expect(rules(w)).toEqual(['single-replica', 'zone-loss']);
  });

  test('shards: one workload per shard, each needing its own replicas; OnShard adds the shard label to the spread selector', () => {
    const spread = [{ ...zoneSpread({ 'app.kubernetes.io/name': 'prometheus' }), additionalLabelSelectors: 'OnShard' }];
    const w = check(promOperator('Prometheus', 'k8s', { replicas: 3, shards: 2, topologySpreadConstraints: spread })).workloads;
    expect(w.map((x) => [x.name, x.replicas, x.survives.a])).toEqual([['k8s (shard 0)', 3, true], ['k8s (shard 1)', 3, true]]);
    expect(w.flatMap(rules)).toEqual([]);
    // without OnShard the constraint selects both shards' pods: spread together, it guarantees nothing for one shard
    const onResource = [{ ...spread[0], additionalLabelSelectors: 'OnResource' }];
    const spreadTogether = { replicas: 3, shards: 2, topologySpreadConstraints: onResource };
    const together = check(promOperator('Prometheus', 'k8s', spreadTogether)).workloads;
    expect(together.flatMap(rules)).toContain('spread-selector-shared');
  });

  test('Alertmanager and ThanosRuler: their own labels; a user PodDisruptionBudget selects the pods', () => {
    const am = promOperator('Alertmanager', 'main', { replicas: 3, affinity: requiredAntiAffinity(ZONE_KEY, { alertmanager: 'main' }) });
    const pdb = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'am', namespace: 'monitoring' },
      spec: { minAvailable: 2, selector: { matchLabels: { 'app.kubernetes.io/name': 'alertmanager' } } },
    };
    const [w] = check(am, pdb).workloads;
    expect(w).toMatchObject({ kind: 'Alertmanager', replicas: 3, needed: 2, neededBecause: 'PodDisruptionBudget am: minAvailable 2', survives: { a: true } });
    const thanosRuler = promOperator('ThanosRuler', 'r', { replicas: 2, affinity: requiredAntiAffinity(ZONE_KEY, { 'thanos-ruler': 'r' }) });
    const [ruler] = check(thanosRuler).workloads;
    expect(ruler).toMatchObject({ kind: 'ThanosRuler', replicas: 2, survives: { a: true, b: true, c: true } });
  });

  test('a PrometheusAgent in DaemonSet mode runs on every node', () => {
    const [w] = check(promOperator('PrometheusAgent', 'agent', { mode: 'DaemonSet' })).workloads;
    expect(w).toMatchObject({ kind: 'PrometheusAgent', replicas: 6, survives: { a: true } });
  });

  test('storage from a claim template: a lost zone\'s replicas stay Pending (their volumes are in it)', () => {
    const [w] = check(promOperator('Prometheus', 'k8s', {
      replicas: 3,
      storage: { volumeClaimTemplate: { spec: { resources: { requests: { storage: '10Gi' } } } } },
      topologySpreadConstraints: [zoneSpread({ prometheus: 'k8s' })],
    })).workloads;
    expect(w.zoneLoss[0]).toMatchObject({ survivors: 2, survives: true, replacementsPending: 1 });
  });

  test.each([
    [{ replicas: -1 }, 'Prometheus monitoring/k8s has spec.replicas -1, not a whole number: not checked'],
    [{ shardingStrategy: { mode: 'Topology' } }, 'Prometheus monitoring/k8s shards by topology (spec.shardingStrategy.mode Topology), which the check does not model: not checked'],
  ])('%j is skipped, saying why', (spec, message) => {
    expect(check(promOperator('Prometheus', 'k8s', spec)).data.findings.map((f) => f.message)).toEqual([message]);
  });
});

describe('CloudNativePG', () => {
  const cluster = (spec: any) => ({
    apiVersion: 'postgresql.cnpg.io/v1',
    kind: 'Cluster',
    metadata: { name: 'pg' },
    spec: { storage: { size: '1Gi' }, ...spec },
  });

  test('3 instances with the operator\'s default (preferred) anti-affinity on hosts: all may share a zone', () => {
    const [w] = check(cluster({ instances: 3 })).workloads;
    expect(w).toMatchObject({ kind: 'Cluster', replicas: 3, survives: { a: false } });
    expect(w.perZone.a.worstCase).toBe(3);
  });

  test('required anti-affinity on the zone key: one instance per zone, survives', () => {
    const onZones = { topologyKey: ZONE_KEY, podAntiAffinityType: 'required' };
    const [w] = check(cluster({ instances: 3, affinity: onZones })).workloads;
    expect(w).toMatchObject({ replicas: 3, survives: { a: true, b: true, c: true } });
    expect(w.perZone.a).toEqual({ guaranteed: 1, worstCase: 1 });
  });

  test('its topologySpreadConstraints, on the operator\'s pod labels', () => {
    const spread = [zoneSpread({ 'cnpg.io/cluster': 'pg' })];
    const [w] = check(cluster({ instances: 3, topologySpreadConstraints: spread })).workloads;
    expect(w.survives).toEqual({ a: true, b: true, c: true });
  });
});

describe('Argo Rollouts', () => {
  const template = {
    metadata: { labels: { app: 'r' } },
    spec: { containers: [{ name: 'c', image: 'x' }], topologySpreadConstraints: [zoneSpread({ app: 'r' })] },
  };
  const rollout = (spec: any) => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'r' },
    spec: { strategy: { canary: {} }, ...spec },
  });

  test('a pod template like a Deployment\'s', () => {
    const [w] = check(rollout({ replicas: 3, template })).workloads;
    expect(w).toMatchObject({ kind: 'Rollout', replicas: 3, survives: { a: true } });
  });

  test('workloadRef: the Deployment\'s template, the Rollout\'s replicas; an HPA on the Rollout', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'r' } }, template },
    };
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h' },
      spec: { scaleTargetRef: { kind: 'Rollout', name: 'r' }, minReplicas: 2, maxReplicas: 5 },
    };
    const r = check(rollout({ replicas: 4, workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' } }), deployment, hpa);
    expect(r.workloads.find((w) => w.kind === 'Rollout')).toMatchObject({ replicas: 2, survives: { a: true } });
  });

  test('a workloadRef to a Deployment not in the input is skipped, naming it', () => {
    expect(check(rollout({ workloadRef: { kind: 'Deployment', name: 'gone' } })).data.findings.map((f) => f.message))
      .toEqual(['Rollout r takes its pod template from Deployment gone (workloadRef), which is not in the input: not checked']);
  });
});

describe('everything else that runs pods is listed as skipped, with why', () => {
  test.each([
    [
      {
        apiVersion: 'kafka.strimzi.io/v1beta2',
        kind: 'Kafka',
        metadata: { name: 'k' },
        spec: { kafka: { replicas: 3 }, zookeeper: { replicas: 3 } },
      },
      'Kafka k runs ZooKeeper-era Kafka (spec.zookeeper or spec.kafka.replicas), which Strimzi 1.0 removed: the Strimzi 1.2.0 model does not cover it: not checked',
    ],
    [{ apiVersion: 'operator.victoriametrics.com/v1beta1', kind: 'VMAgent', metadata: { name: 'v' }, spec: { replicaCount: 2 } }, 'VMAgent v runs pods (its spec.replicaCount), but'],
    [{ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { template: { spec: { containers: [] } } } }, 'Thing t runs pods (its spec.template), but'],
  ])('%#', (o, message) => {
    const r = check(o);
    expect(r.workloads).toEqual([]);
    expect(r.data.findings.map((f) => f.message).join('\n')).toContain(message);
  });

  test.each([
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [] } },
    { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'c' }, spec: { secretName: 'x' } },
    { apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: { name: 'm' }, spec: { endpoints: [] } },
  ])('%j runs no pods: nothing said', (o) => {
    expect(check(o).data.findings).toEqual([]);
  });
});

test.each([
  [{ apiVersion: 'opensearch.opster.io/v1', kind: 'OpenSearchCluster', metadata: { name: 'os' }, spec: { general: {} } }, 'OpenSearchCluster os runs pods (its kind)'],
  [
    {
      apiVersion: 'operator.m3db.io/v1alpha1',
      kind: 'Other',
      metadata: { name: 'm' },
      spec: { isolationGroups: [{ name: 'a', numInstances: 1 }] },
    },
    'Other m runs pods (its spec.isolationGroups[0].numInstances)',
  ],
])('a kind known to run pods, or a count inside a list, is found: %#', (o, message) => {
  expect(check(o).data.findings.map((f) => f.message).join('\n')).toContain(message);
});
