/** The zone check's placement rules, one test each: the manifest, what the report says, the finding's rule id. */
import { check, deployment, inZones, rules, ZONE_KEY, ZONES, zoneSpread } from './manifests';
import { ZoneInventory, ZoneReport } from '../../src';

/** The Deployment `pinned` (2 replicas) whose pods also carry tier=web. */
function pinnedWithTierWeb(): any {
  const d = deployment('pinned', 2);
  d.spec.template.metadata.labels.tier = 'web';
  return d;
}

describe('placement rules', () => {
  test('a spread selector that also selects another workload\'s pods guarantees nothing about this one\'s', () => {
    const other = pinnedWithTierWeb();
    const shared = deployment('spread', 3, {
      topologySpreadConstraints: [{
        topologyKey: ZONE_KEY,
        maxSkew: 1,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { tier: 'web' } },
      }],
    });
    shared.spec.template.metadata.labels.tier = 'web';
    const w = check(other, shared).workloads[1];
    expect(w.findings.map((f) => f.rule)).toContain('spread-selector-shared');
    expect(w.perZone.a).toEqual({ guaranteed: 0, worstCase: 3 });
  });

  test('a shared selector is harmless on a soft spread, and matchLabelKeys can keep the other workload out', () => {
    const other = pinnedWithTierWeb();
    const spreadWith = (extra: object) => {
      const d = deployment('spread', 3, {
        topologySpreadConstraints: [{
          topologyKey: ZONE_KEY,
          maxSkew: 1,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { tier: 'web' } },
          ...extra,
        }],
      });
      d.spec.template.metadata.labels.tier = 'web';
      return check(other, d).workloads[1].findings.map((f) => f.rule);
    };
    expect(spreadWith({ whenUnsatisfiable: 'ScheduleAnyway' })).not.toContain('spread-selector-shared');
    // the Deployment's own revision label, or a template label whose value the other lacks, keeps the other's pods out
    expect(spreadWith({ matchLabelKeys: ['pod-template-hash'] })).not.toContain('spread-selector-shared');
    expect(spreadWith({ matchLabelKeys: ['app'] })).not.toContain('spread-selector-shared');
    // a StatefulSet's revision label is no Deployment's: ignored (the Deployment's pods lack it);
    // so is a key both share
    expect(spreadWith({ matchLabelKeys: ['controller-revision-hash'] })).toContain('spread-selector-shared');
    expect(spreadWith({ matchLabelKeys: ['tier'] })).toContain('spread-selector-shared');
  });

  test('a hard host spread caps each node near the average: 6 pods on 9 nodes hold at most 1 each, 3 per zone', () => {
    const hosts = {
      topologySpreadConstraints: [{
        topologyKey: 'kubernetes.io/hostname',
        maxSkew: 1,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'w' } },
      }],
    };
    const w = ZoneReport.analyze([deployment('w', 6, hosts)], ZoneInventory.equalNodes(ZONES, 3)).workloads[0];
    expect(w.perZone.a.worstCase).toBe(3);
    expect(w.zoneLoss.every((l) => l.survivors >= 3)).toBe(true);
  });

  test('a spread selector that does not match the pod labels does nothing', () => {
    const r = check(deployment('web', 6, zoneSpread('other')));
    expect(rules(r)).toContain('spread-selector-mismatch');
    expect(r.workloads[0].perZone.a.worstCase).toBe(6);
  });

  test('a soft zone spread guarantees nothing', () => {
    expect(rules(check(deployment('web', 6, zoneSpread('web', { whenUnsatisfiable: 'ScheduleAnyway' }))))).toEqual(['no-hard-zone-spread', 'soft-zone-spread', 'zone-loss']);
  });

  test('node affinity to two zones with a hard spread and minDomains 3: the minimum counts as 0, so 1 per zone, the rest Pending', () => {
    const pod = {
      ...zoneSpread('web', { minDomains: 3 }),
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: inZones(['a', 'b']) } },
    };
    const w = check(deployment('web', 6, pod)).workloads[0];
    expect(w.perZone).toEqual({
      a: { guaranteed: 1, worstCase: 1 },
      b: { guaranteed: 1, worstCase: 1 },
      c: { guaranteed: 0, worstCase: 0 },
    });
    expect(w.pendingWorstCase).toBe(4);
    expect(w.findings.map((f) => f.rule)).toEqual(expect.arrayContaining(['pending', 'zone-unusable']));
  });

  test('taints keep pods off nodes unless tolerated; requests against allocatable', () => {
    const nodes = ZONES.map((zone) => ({
      name: `n-${zone}`,
      zone,
      allocatableCpu: '2',
      taints: zone === 'c' ? [{ key: 'gpu', effect: 'NoSchedule' }] : [],
    }));
    const inv = new ZoneInventory({ zones: ZONES, nodes });
    const pod = { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '500m' } } }] };
    expect(ZoneReport.analyze([deployment('w', 12, pod)], inv).workloads[0]).toMatchObject({
      pendingWorstCase: 4, perZone: { a: { worstCase: 4 }, b: { worstCase: 4 }, c: { worstCase: 0 } },
    });
    const tolerating = { ...pod, tolerations: [{ key: 'gpu', operator: 'Exists' }] };
    expect(ZoneReport.analyze([deployment('w', 12, tolerating)], inv).workloads[0].pendingWorstCase).toBe(0);
  });

  test('required pod anti-affinity to its own pods per host: one per node', () => {
    const anti = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{
            topologyKey: 'kubernetes.io/hostname',
            labelSelector: { matchLabels: { app: 'w' } },
          }],
        },
      },
    };
    expect(check(deployment('w', 8, anti)).workloads[0].pendingWorstCase).toBe(2);
  });

  test('required pod affinity to its own pods per zone puts them all in one zone', () => {
    const colocate = {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{
            topologyKey: ZONE_KEY,
            labelSelector: { matchLabels: { app: 'w' } },
          }],
        },
      },
    };
    const r = check(deployment('w', 3, colocate));
    expect(rules(r)).toEqual(expect.arrayContaining(['self-affinity-one-zone', 'zone-loss']));
  });

  test('a StatefulSet on an Immediate-binding StorageClass: the spread cannot hold', () => {
    const sc = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'x', volumeBindingMode: 'Immediate' };
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'c', image: 'x' }], ...zoneSpread('db') },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { storageClassName: 'fast' } }],
      },
    };
    const w = check(sc, sts).workloads[0];
    expect(w.findings.map((f) => f.rule)).toContain('immediate-binding');
    expect(w.perZone.a.worstCase).toBe(3);
    // with WaitForFirstConsumer, the spread holds, and a lost zone's replica waits for its volume's zone
    const w2 = check({ ...sc, volumeBindingMode: 'WaitForFirstConsumer' }, sts).workloads[0];
    expect(w2.perZone.a).toEqual({ guaranteed: 1, worstCase: 1 });
    expect(w2.zoneLoss[0].replacementsPending).toBe(1);
  });

  test('PersistentVolumes with node affinity pin the pods whose claims are bound to them', () => {
    const pv = (name: string, zone: string, claim: string) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { namespace: 'db', name: claim },
        nodeAffinity: { required: inZones([zone]) },
      },
    });
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'pg', namespace: 'db', annotations: { 'cdk8s-zones.dev/quorum': 'majority' } },
      spec: {
        replicas: 3,
        serviceName: 'pg',
        selector: { matchLabels: { app: 'pg' } },
        template: {
          metadata: { labels: { app: 'pg' } },
          spec: { containers: [{ name: 'c', image: 'x' }], ...zoneSpread('pg') },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }],
      },
    };
    // pod i runs only where its claim data-pg-<i> is bound: two in zone a, one in b. The hard spread still counts
    // zone c (0 pods), so a second pod in zone a would put it 2 past c: it stays Pending (the Kubernetes tier's
    // check-live test sees the scheduler do so)
    const w = check(sts, pv('v0', 'a', 'data-pg-0'), pv('v1', 'a', 'data-pg-1'), pv('v2', 'b', 'data-pg-2')).workloads[0];
    expect(w.perZone).toEqual({
      a: { guaranteed: 1, worstCase: 1 },
      b: { guaranteed: 1, worstCase: 1 },
      c: { guaranteed: 0, worstCase: 0 },
    });
    expect(w.pendingWorstCase).toBe(1);
    expect(w.findings.find((f) => f.rule === 'volume-pinned')!.message).toBe('each of its pods\' claims is bound to a volume in one zone, ' +
      'so each pod runs only there: 2 in a, 1 in b, 0 in c; its hard zone spread lets only 2 of them run, the others stay Pending');
    // a majority of 3 is 2: losing a or b leaves 1
    expect(w.survives).toEqual({ a: false, b: false, c: true });
    // a claim every pod mounts, bound to a volume in zone b: every pod in zone b
    const sharedClaim = { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'shared' } }] };
    const web = deployment('web', 3, sharedClaim, { namespace: 'db' });
    const pinned = check(web, pv('v9', 'b', 'shared')).workloads[0];
    expect(pinned.perZone.b.worstCase).toBe(3);
    expect(pinned.perZone.a.worstCase).toBe(0);
    expect(pinned.findings.map((f) => f.rule)).toContain('volume-pinned');
  });

  test('a DaemonSet runs on the nodes it admits; a Job by its parallelism', () => {
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    };
    expect(check(ds).workloads[0]).toMatchObject({
      replicas: 6,
      perZone: { a: { guaranteed: 2, worstCase: 2 } },
      survives: { a: true },
    });
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: {
        parallelism: 3,
        template: {
          metadata: { labels: { app: 'j' } },
          spec: { containers: [{ name: 'c', image: 'x' }], ...zoneSpread('j') },
        },
      },
    };
    // its spread counts running pods only: finished pods free their places, so it is not relied on
    const j = check(job).workloads[0];
    expect(j).toMatchObject({ replicas: 3, perZone: { a: { guaranteed: 0, worstCase: 3 } } });
    expect(j.findings.map((f) => f.rule)).toContain('job-constraints-while-running');
  });
});
