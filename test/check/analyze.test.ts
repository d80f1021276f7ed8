/**
 * The zone check's rules, one test each: the manifest, what the report says, the finding's rule id (the placement
 * rules: placement-rules.test.ts).
 */
import { check, deployment, inZones, inventory, rules, ZONE_KEY, zoneSpread } from './manifests';
import { ZoneInventory, ZoneReport } from '../../src';

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
