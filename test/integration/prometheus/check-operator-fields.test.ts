/**
 * The zone check reads prometheus-operator resources (src/check/operators.ts): every field it reads from a
 * Prometheus and a PrometheusAgent is one the upstream CRDs define, with the type it expects. An object setting
 * each of them passes the CRDs' schemas (strict: an unknown field is an error), and the check places it.
 */
import { ZoneInventory, ZoneReport } from '../../../src';
import { CrdSchemas } from '../crd-schema';

const schemas = CrdSchemas.fromShared();
const ZONE_KEY = 'topology.kubernetes.io/zone';

/** Every field the check's model of a Prometheus (or agent) reads, set. */
function everyField(kind: 'Prometheus' | 'PrometheusAgent'): any {
  return {
    apiVersion: 'monitoring.coreos.com/v1' + (kind === 'PrometheusAgent' ? 'alpha1' : ''),
    kind,
    metadata: { name: 'k8s', namespace: 'monitoring', annotations: { 'cdk8s-zones.dev/quorum': '1' } },
    spec: {
      replicas: 2,
      shards: 2,
      ...(kind === 'PrometheusAgent' ? { mode: 'StatefulSet' } : {}),
      podMetadata: { labels: { team: 'obs' } },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{
            topologyKey: ZONE_KEY,
            labelSelector: { matchLabels: { prometheus: 'k8s' } },
          }],
        },
      },
      topologySpreadConstraints: [{
        maxSkew: 1,
        topologyKey: ZONE_KEY,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { team: 'obs' } },
        additionalLabelSelectors: 'OnShard',
      }],
      resources: { requests: { cpu: '100m', memory: '256Mi' } },
      storage: { volumeClaimTemplate: { spec: { storageClassName: 'zonal', resources: { requests: { storage: '10Gi' } } } } },
    },
  };
}

test.each(['Prometheus', 'PrometheusAgent'] as const)('a %s setting every field the check reads passes the upstream CRD, and is placed', (kind) => {
  const o = everyField(kind);
  expect(schemas.covers(o)).toBe(true);
  expect(schemas.errors(o)).toEqual([]);
  const report = ZoneReport.analyze([o], ZoneInventory.equalNodes(['a', 'b', 'c'], 2));
  expect(report.workloads.map((w) => [w.kind, w.name, w.replicas])).toEqual([[kind, 'k8s (shard 0)', 2], [kind, 'k8s (shard 1)', 2]]);
});

test.each([
  ['a misspelt field', (o: any) => { o.spec.topologySpreadConstraint = o.spec.topologySpreadConstraints; }],
  ['an additionalLabelSelectors value the CRD does not know', (o: any) => { o.spec.topologySpreadConstraints[0].additionalLabelSelectors = 'OnCluster'; }],
])('the schema check can fail: %s', (_, edit) => {
  const o = everyField('Prometheus');
  edit(o);
  expect(schemas.errors(o).length).toBeGreaterThan(0);
});
