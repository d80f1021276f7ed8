/**
 * Crunchy PGO's PostgresCluster, Zalando's postgresql and VictoriaMetrics' VMCluster read through their models
 * (rows/crunchy-pgo.ts, zalando-postgres.ts, victoriametrics.ts).
 */
import { allZones, check, errors, hardZoneSpread, row, skippedMessages } from './helpers';

describe('Crunchy PGO PostgresCluster', () => {
  const pg = (spec: object) => ({ apiVersion: 'postgres-operator.crunchydata.com/v1beta1', kind: 'PostgresCluster', metadata: { name: 'hippo' }, spec });
  // the instances' own labels: a selector of the cluster label alone also counts pgBouncer's pods
  const cluster = { 'postgres-operator.crunchydata.com/cluster': 'hippo', 'postgres-operator.crunchydata.com/data': 'postgres' };
  const spread = { topologySpreadConstraints: [hardZoneSpread(cluster)] };

  test('an instance set of 2 spread hard over the zones: an instance left to promote in any zone', () => {
    const r = check(pg({ instances: [{ name: 'pgha1', replicas: 2, ...spread }] }));
    expect(row(r, 'StatefulSets of one instance', 'hippo-pgha1').replicas).toBe(2);
    expect(row(r, 'PostgresCluster', 'hippo').survives).toEqual(allZones(true));
  });

  test('the default soft spreads only: 2 instances may share a zone; an unnamed set is named by its index', () => {
    const r = check(pg({ instances: [{ replicas: 2 }] }));
    expect(row(r, 'PostgresCluster', 'hippo').survives).toEqual(allZones(false));
    expect(r.workloads.map((w) => w.name)).toEqual(['hippo-00', 'hippo']);
  });

  test('a pgBouncer of 1 is lost with its zone, whatever the instances do', () => {
    const r = check(pg({ instances: [{ name: 'a', replicas: 3, ...spread }], proxy: { pgBouncer: {} } }));
    expect(errors(row(r, 'PostgresCluster', 'hippo')).map((f) => f.message)).toEqual([expect.stringContaining('it needs 1 (a pgBouncer left)')]);
  });
});

describe('Zalando postgresql', () => {
  const pg = (spec: object) => ({
    apiVersion: 'acid.zalan.do/v1',
    kind: 'postgresql',
    metadata: { name: 'acid-main', namespace: 'db' },
    spec: { teamId: 'acid', ...spec },
  });
  test('2 instances with a hard zone spread (its selector written, as the operator adds none): survives', () => {
    const labels = { 'application': 'spilo', 'cluster-name': 'acid-main' };
    const r = check(pg({ numberOfInstances: 2, topologySpreadConstraints: [hardZoneSpread(labels)] }));
    expect(row(r, 'postgresql', 'acid-main').survives).toEqual(allZones(true));
    expect(row(check(pg({ numberOfInstances: 2 })), 'postgresql', 'acid-main').survives).toEqual(allZones(false));
  });
  test('no numberOfInstances: named', () => {
    expect(skippedMessages(check(pg({})))).toEqual(['postgresql db/acid-main sets no spec.numberOfInstances: not checked']);
  });
});

describe('VictoriaMetrics VMCluster', () => {
  const vm = (spec: object) => ({ apiVersion: 'operator.victoriametrics.com/v1beta1', kind: 'VMCluster', metadata: { name: 'm', namespace: 'mon' }, spec });
  // a spread without a labelSelector: the operator gives it the component's
  const spread = { topologySpreadConstraints: [{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] };
  const components = {
    vmstorage: { replicaCount: 3, ...spread },
    vmselect: { replicaCount: 2, ...spread },
    vminsert: { replicaCount: 2, ...spread },
  };

  test('replicationFactor 2 over 3 spread vmstorage nodes, and spread vmselect and vminsert: complete answers after any zone', () => {
    const r = check(vm({ replicationFactor: 2, ...components }));
    expect(r.workloads.map((w) => `${w.kind} ${w.name}`)).toEqual(['StatefulSet vmstorage-m', 'StatefulSet vmselect-m', 'Deployment vminsert-m', 'VMCluster m']);
    expect(row(r, 'VMCluster', 'm').survives).toEqual(allZones(true));
  });

  test('replicationFactor unset (VictoriaMetrics\' default 1): a series on the lost zone\'s vmstorage is gone', () => {
    const system = row(check(vm(components)), 'VMCluster', 'm');
    expect(errors(system)[0].message).toContain('may take 1 of an item\'s 1 copies (nothing places the copies in different zones); it needs 1');
  });

  test('legacy naming is named, not guessed', () => {
    expect(skippedMessages(check(vm({ useLegacyNaming: true, ...components })))[0]).toContain('uses legacy naming (spec.useLegacyNaming)');
  });
});
