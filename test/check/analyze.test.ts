/** The zone check's rules, one table row each: the manifest, what the report says, the finding's rule id. */
import { ZoneInventory, ZoneReport } from '../../src';

const ZONES = ['a', 'b', 'c'];
const ZONE_KEY = 'topology.kubernetes.io/zone';
const inventory = ZoneInventory.equalNodes(ZONES, 2);

/** A Deployment `name` with `replicas`, pods labelled app=<name>, and `pod` merged into its pod spec. */
function deployment(name: string, replicas: number, pod: any = {}, meta: any = {}): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...meta },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'x' }], ...pod },
      },
    },
  };
}
const zoneSpread = (app: string, extra: any = {}) => ({
  topologySpreadConstraints: [{
    topologyKey: ZONE_KEY,
    maxSkew: 1,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app } },
    ...extra,
  }],
});
const check = (...objects: any[]) => ZoneReport.analyze(objects, inventory);
const rules = (r: ZoneReport, i = 0) => r.workloads[i].findings.map((f) => f.rule).sort();
/** A required node selector: nodes in one of `zones`. */
const inZones = (zones: string[]) => ({
  nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: zones }] }],
});
/** The Deployment `pinned` (2 replicas) whose pods also carry tier=web. */
function pinnedWithTierWeb(): any {
  const d = deployment('pinned', 2);
  d.spec.template.metadata.labels.tier = 'web';
  return d;
}

describe('survival', () => {
  test('6 replicas with a hard zone spread: 2 per zone, survives every zone', () => {
    const r = check(deployment('web', 6, zoneSpread('web')));
    const two = { guaranteed: 2, worstCase: 2 };
    expect(r.workloads[0].perZone).toEqual({ a: two, b: two, c: two });
    expect(r.survivesAnyZoneLoss()).toBe(true);
    expect(rules(r)).toEqual([]);
  });

  test('no hard zone spread: all replicas may land in one zone', () => {
    const r = check(deployment('web', 6));
    expect(r.workloads[0].perZone.a).toEqual({ guaranteed: 0, worstCase: 6 });
    expect(r.survivesLossOf('a')).toBe(false);
    expect(rules(r)).toEqual(['no-hard-zone-spread', 'zone-loss']);
  });

  test('one replica never survives its zone', () => {
    const r = check(deployment('web', 1, zoneSpread('web')));
    expect(r.failingOnLossOf('a')).toEqual(['Deployment web']);
    expect(rules(r)).toEqual(['single-replica', 'zone-loss']);
  });

  test('a PodDisruptionBudget\'s minAvailable is what it needs (percent rounded up); maxUnavailable is not a need', () => {
    const pdb = (spec: any) => ({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p' },
      spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
    });
    const web = () => deployment('web', 6, zoneSpread('web'));
    expect(check(web(), pdb({ minAvailable: '70%' })).workloads[0]).toMatchObject({ needed: 5, survives: { a: false } });
    expect(check(web(), pdb({ minAvailable: 4 })).workloads[0]).toMatchObject({ needed: 4, survives: { a: true } });
    expect(check(web(), pdb({ maxUnavailable: 1 })).workloads[0]).toMatchObject({ needed: 1, survives: { a: true } });
  });

  test('a drain is blocked where a budget leaves too few pods, never by a DaemonSet (kubectl drain leaves its pods)', () => {
    const pdb = (budget: object) => ({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p' },
      spec: { selector: { matchLabels: { app: 'web' } }, ...budget },
    });
    const blocked = (w: any, budget: object = { minAvailable: 6 }) =>
      check(w, pdb(budget)).workloads[0].zoneLoss.map((l) => l.drainBlocked);
    expect(blocked(deployment('web', 6, zoneSpread('web')))).toEqual([true, true, true]);
    // one pod and minAvailable 1: its eviction is refused (its replacement would come only after it)
    expect(blocked(deployment('web', 1, zoneSpread('web')), { minAvailable: 1 })).toEqual([true, true, true]);
    expect(blocked(deployment('web', 1, zoneSpread('web')), { maxUnavailable: 0 })).toEqual([true, true, true]);
    // six without a zone spread, minAvailable 5: one eviction at a time, each replaced in another zone
    expect(blocked(deployment('web', 6), { minAvailable: 5 })).toEqual([false, false, false]);
    // with a hard zone spread the drained zone's replacements wait (its cordoned nodes still count as a domain):
    // 6 - 2 < 5
    expect(blocked(deployment('web', 6, zoneSpread('web')), { minAvailable: 5 })).toEqual([true, true, true]);
    const daemons = deployment('web', 0);
    const daemonSet = {
      ...daemons,
      kind: 'DaemonSet',
      spec: { selector: daemons.spec.selector, template: daemons.spec.template },
    };
    expect(blocked(daemonSet)).toEqual([false, false, false]);
  });

  test('a ZoneDisruptionBudget paces a drain of one zone as its maxUnavailable says; with a PodDisruptionBudget the stricter holds', () => {
    const zdb = (maxUnavailable: number | string, apiVersion = 'cdk8s-zones.dev/v1alpha1') =>
      ({
        apiVersion,
        kind: 'ZoneDisruptionBudget',
        metadata: { name: 'z' },
        spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable },
      });
    const blocked = (...objects: any[]) =>
      check(deployment('web', 6, zoneSpread('web')), ...objects).workloads[0].zoneLoss.map((l) => l.drainBlocked);
    // the zone's 2 replacements wait (hard spread): 1 out at a time cannot empty it, 2 can
    expect(blocked(zdb(1))).toEqual([true, true, true]);
    expect(blocked(zdb(2))).toEqual([false, false, false]);
    expect(blocked(zdb('34%'))).toEqual([false, false, false]);
    expect(blocked(zdb(1, 'example.com/v1'))).toEqual([false, false, false]); // not ours
    const pdb = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p' },
      spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 },
    };
    expect(blocked(zdb(2), pdb)).toEqual([true, true, true]);
    // not a need: only a PodDisruptionBudget's minAvailable says what it needs
    expect(check(deployment('web', 6, zoneSpread('web')), zdb(1)).workloads[0].needed).toBe(1);
  });

  test('replicas left to a controller (unset, with the cdk8s-zones.dev/replicas annotation) count as the annotation says', () => {
    const scaled = (value: string) => {
      const d = deployment('db', 1, {}, { annotations: { 'cdk8s-zones.dev/replicas': value } });
      delete d.spec.replicas;
      return check(d).workloads[0];
    };
    expect(scaled('4')).toMatchObject({ replicas: 4, replicasFrom: 'the cdk8s-zones.dev/replicas annotation (replicas unset: its controller scales it)' });
    expect(scaled('many')).toMatchObject({ replicas: 1, replicasFrom: expect.stringContaining('"many" is not a whole number: 1 assumed') });
    // replicas in the manifest win
    expect(check(deployment('db', 2, {}, { annotations: { 'cdk8s-zones.dev/replicas': '4' } })).workloads[0]).toMatchObject({ replicas: 2 });
  });

  test('the quorum annotation: majority, a number, 0, and a value it refuses', () => {
    const q = (value: string) => check(deployment('db', 5, zoneSpread('db'), { annotations: { 'cdk8s-zones.dev/quorum': value } })).workloads[0];
    expect(q('majority')).toMatchObject({ needed: 3, survives: { a: true } }); // 2+2+1: losing 2 leaves 3
    expect(q('4')).toMatchObject({ needed: 4, survives: { a: false } });
    expect(q('0').survives).toEqual({ a: true, b: true, c: true });
    expect(q('most').findings.map((f) => f.rule)).toContain('quorum-annotation-invalid');
  });
});

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
    // pod i runs where its claim data-pg-<i> is bound: two in zone a, whatever the spread says
    const w = check(sts, pv('v0', 'a', 'data-pg-0'), pv('v1', 'a', 'data-pg-1'), pv('v2', 'b', 'data-pg-2')).workloads[0];
    expect(w.perZone).toEqual({
      a: { guaranteed: 2, worstCase: 2 },
      b: { guaranteed: 1, worstCase: 1 },
      c: { guaranteed: 0, worstCase: 0 },
    });
    expect(w.survives).toEqual({ a: false, b: true, c: true });
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

describe('zone groups', () => {
  const member = (zone: string, quorum = 'zone-majority') => deployment(`ing-${zone}`, 2, {
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: inZones([zone]) } },
  }, { annotations: { 'cdk8s-zones.dev/quorum': quorum, 'cdk8s-zones.dev/zone-group': 'ingesters' } });

  test('per-zone members judged together: a majority of zones survives any one zone', () => {
    const r = check(member('a'), member('b'), member('c'));
    const group = r.workloads.find((w) => w.kind === 'ZoneGroup')!;
    expect(group).toMatchObject({ name: 'ingesters', replicas: 6, survives: { a: true, b: true, c: true } });
    expect(r.survivesAnyZoneLoss()).toBe(true);
  });

  test('two zones of three: losing one leaves one of two, no majority', () => {
    const r = check(member('a'), member('b'));
    expect(r.workloads.find((w) => w.kind === 'ZoneGroup')!.survives).toEqual({ a: false, b: false, c: true });
  });

  test('members that disagree on the quorum are reported', () => {
    const r = check(member('a'), member('b', 'majority'), member('c'));
    expect(r.workloads.find((w) => w.kind === 'ZoneGroup')!.findings.map((f) => f.rule)).toContain('quorum-annotation-invalid');
  });
});

describe('a LokiStack: its ingesters as the Loki operator places them, judged by the ring\'s quorum', () => {
  const stack = (factor: number, replicas: number | null = 6) => ({
    apiVersion: 'loki.grafana.com/v1',
    kind: 'LokiStack',
    metadata: { name: 'logs' },
    spec: {
      size: '1x.small',
      storageClassName: 'gp3',
      ...(replicas !== null ? { template: { ingester: { replicas } } } : {}),
      replication: { factor, zones: [{ topologyKey: ZONE_KEY, maxSkew: 1 }] },
    },
  });

  test('factor 3 over 3 zones: a stream loses one replica of three, keeps its quorum', () => {
    const w = check(stack(3)).workloads[0];
    expect(w).toMatchObject({ kind: 'LokiStack', name: 'logs (ingesters)', replicas: 6, needed: 2, survives: { a: true, b: true, c: true } });
    expect(w.perZone.a).toEqual({ guaranteed: 2, worstCase: 2 });
    // its ingesters' volumes are in the lost zone: replacements wait for it
    expect(w.zoneLoss[0].replacementsPending).toBe(2);
  });

  test('factor 3 over 2 zones (dskit shrinks the replica set, the quorum stays 2), and factor 2: a zone loss is an outage', () => {
    const twoZones = ZoneReport.analyze([stack(3)], ZoneInventory.equalNodes(['a', 'b'], 2)).workloads[0];
    expect(twoZones.survives).toEqual({ a: false, b: false });
    expect(check(stack(2)).workloads[0].survives).toEqual({ a: false, b: false, c: false });
  });

  test('ingester replicas left to the operator\'s size table are not guessed', () => {
    const r = check(stack(3, null));
    expect(r.workloads).toEqual([]);
    expect(r.data.findings[0].message).toContain('sets no spec.template.ingester.replicas');
  });
});

describe('hostile input: findings, never exceptions', () => {
  test.each([
    ['null', null],
    ['a string', 'Deployment'],
    ['no kind', { metadata: { name: 'x' } }],
    ['no name', { kind: 'Deployment', spec: { template: { spec: {} } } }],
    ['no template', { kind: 'Deployment', metadata: { name: 'x' }, spec: {} }],
    ['replicas NaN', { kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 'many', template: { spec: {} } } }],
  ])('%s', (_what, object) => {
    const r = check(object);
    expect(r.workloads).toEqual([]);
    expect(r.data.findings.map((f) => f.rule)).toEqual(['object-skipped']);
  });

  test('manifests that are no list are refused, naming the call and the prop', () => {
    expect(() => ZoneReport.analyze('x' as any, inventory)).toThrow('ZoneReport.analyze: manifests="x" must be a list');
    expect(() => ZoneReport.analyze([], 'x' as any)).toThrow('ZoneReport.analyze: inventory="x" must be a ZoneInventory');
  });

  test('malformed constraints and selectors are read as Kubernetes would read nothing, without a crash', () => {
    const pod = {
      topologySpreadConstraints: [null, {
        topologyKey: ZONE_KEY,
        whenUnsatisfiable: 'DoNotSchedule',
        maxSkew: 'x',
        labelSelector: { matchExpressions: [{ key: 'app', operator: 'Bogus' }] },
      }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Gt', values: ['x'] }] }],
          },
        },
      },
      tolerations: [null],
      containers: [{ resources: { requests: { cpu: 'lots' } } }],
    };
    expect(() => check(deployment('w', 3, pod))).not.toThrow();
    expect(check({ kind: 'List', items: [deployment('w', 3, zoneSpread('w'))] }).workloads).toHaveLength(1);
  });
});
