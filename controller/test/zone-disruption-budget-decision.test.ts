import { all, pod, world, zdb } from './zone-disruption-budget-fixtures';
import { ZONE_IN_SERVICE_CONDITION } from '../../src/contract/zone-shift';
import { KubeObject } from '../src/kube/api';
import { budgetOf, budgetStatus, BudgetWorld, decideEviction } from '../src/reconcilers/zone-disruption-budget-decision';

/** A ReplicaSet `web-1` of 3 replicas, its pods `web-1-<i>`, and a budget of 1 unavailable over them. */
const WEB_REPLICA_SET: KubeObject = {
  kind: 'ReplicaSet',
  metadata: { name: 'web-1', namespace: 'ns', uid: 'rs' },
  spec: { replicas: 3, template: { metadata: { labels: { app: 'web' } } } },
};
const webPodMetadata = (i: number) => ({
  name: `web-1-${i}`,
  namespace: 'ns',
  labels: { app: 'web' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs', controller: true }],
});
const WEB_BUDGET = {
  metadata: { name: 'web', namespace: 'ns' },
  spec: { selector: { matchLabels: { app: 'web' } }, maxUnavailable: 1 },
};
/** Each zone of the budget `zdb(2)` over `w`: its name, expected and healthy pods. */
const zoneHealth = (w: BudgetWorld) => budgetOf(zdb(2), w).budget.zones.map((z) => [z.zone, z.expected, z.healthy]);

describe('zone-disruption-budget decision', () => {
  test('status: per zone expected, healthy, disruptions allowed; percent of the total rounded up', () => {
    const { budget } = budgetOf(zdb('20%'), world(all()));
    expect(budgetStatus(zdb('20%'), budget)).toEqual({
      observedGeneration: 3,
      expectedPods: 6,
      healthyPods: 6,
      maxUnavailable: 2,
      zones: ['zone-a', 'zone-b', 'zone-c'].map((zone) => ({ zone, expected: 2, healthy: 2, disruptionsAllowed: 2 })),
    });
  });

  describe('during a zonal shift of zone-a', () => {
    /** db-i as the API server shows it when a shift took it out: its gate False, its containers ready, not Ready. */
    const outByShift = (i: number): KubeObject => {
      const p = pod(i, { ready: false });
      const conditions = [
        ...p.status.conditions,
        { type: 'ContainersReady', status: 'True' },
        { type: ZONE_IN_SERVICE_CONDITION, status: 'False' },
      ];
      return { ...p, status: { conditions } };
    };
    const shifted = () => all().map((p, i) => (i % 3 === 0 ? outByShift(i) : p));

    test('its gated pods count as no disruption, the status says so, and a drain of zone-b goes on', () => {
      const w = world(shifted());
      const { budget } = budgetOf(zdb(1), w);
      expect(budgetStatus(zdb(1), budget).zones).toEqual([
        { zone: 'zone-a', expected: 2, healthy: 0, disruptionsAllowed: 1, shifted: true, outByShift: 2 },
        { zone: 'zone-b', expected: 2, healthy: 2, disruptionsAllowed: 1 },
        { zone: 'zone-c', expected: 2, healthy: 2, disruptionsAllowed: 1 },
      ]);
      expect(decideEviction(pod(1), [zdb(1)], w)).toMatchObject({ allowed: true, zone: 'zone-b' });
      expect(decideEviction(outByShift(0), [zdb(1)], w).message).toBe('eviction of db-0 allowed');
    });

    test('a pod whose containers are not ready is unavailable as any, shift or not', () => {
      const conditions = [{ type: 'Ready', status: 'False' }, { type: ZONE_IN_SERVICE_CONDITION, status: 'False' }];
      const broken = { ...outByShift(0), status: { conditions } };
      const w = world(all().map((p, i) => (i === 0 ? broken : p)));
      expect(decideEviction(pod(1), [zdb(1)], w)).toMatchObject({ allowed: false });
    });

    test('the zone whose nodes carry the shift\'s taint holds no other zone back once its pods are gone', () => {
      const gone = all().filter((_, i) => i % 3 !== 0);
      expect(decideEviction(pod(1), [zdb(1)], world(gone))).toMatchObject({ allowed: false });
      const tainted = world(gone, { shiftedZones: new Set(['zone-a']) });
      expect(decideEviction(pod(1), [zdb(1)], tainted)).toMatchObject({ allowed: true });
    });
  });

  test('bug 28: a deleted, not recreated pod counts in its claim\'s zone and blocks the other zones', () => {
    const pods = all().filter((p) => p.metadata.name !== 'db-1'); // db-1 (zone-b) is gone
    const w = world(pods);
    expect(budgetOf(zdb(1), w).budget.zones.map((z) => [z.zone, z.expected, z.healthy, z.disruptionsAllowed]))
      .toEqual([['zone-a', 2, 2, 0], ['zone-b', 2, 1, 0], ['zone-c', 2, 2, 0]]);
    expect(decideEviction(pod(0), [zdb(1)], w)).toMatchObject({ allowed: false, zone: 'zone-a' });
    expect(decideEviction(pod(4), [zdb(2)], w)).toMatchObject({ allowed: true, zone: 'zone-b' });
  });

  test('without a claim, the zone where the pod last ran; without either, every zone is blocked', () => {
    const pods = all().filter((p) => p.metadata.name !== 'db-1');
    const remembered = world(pods, { claims: [], lastZones: new Map([['ns/db-1', 'zone-b']]) });
    expect(decideEviction(pod(4), [zdb(2)], remembered).allowed).toBe(true);
    const unknown = world(pods, { claims: [] });
    expect(decideEviction(pod(4), [zdb(2)], unknown))
      .toMatchObject({ allowed: false, message: expect.stringMatching(/<unknown> \(1 unavailable\)/) });
  });

  test('a recreated pod not yet scheduled is placed by its claim', () => {
    const pods = [...all().filter((p) => p.metadata.name !== 'db-1'), { ...pod(1, { ready: false }), spec: {} }];
    expect(budgetOf(zdb(2), world(pods)).budget.zones.map((z) => z.zone)).toEqual(['zone-a', 'zone-b', 'zone-c']);
  });

  test('what the API server shows decides: a terminating pod is unavailable in its zone', () => {
    const going = world(all().map((p) => (p.metadata.name === 'db-1' ? pod(1, { terminating: true }) : p)));
    expect(decideEviction(pod(0), [zdb(2)], going))
      .toMatchObject({ allowed: false, zone: 'zone-a', message: expect.stringMatching(/zone-b \(1 unavailable\)/) });
    expect(decideEviction(pod(4), [zdb(2)], going)).toMatchObject({ allowed: true, zone: 'zone-b', available: true });
    // the terminating pod itself may go again (it is unavailable already: nothing to reserve), even while another
    // zone is disrupted
    expect(decideEviction(pod(1, { terminating: true }), [zdb(2)], going))
      .toMatchObject({ allowed: true, available: false });
    const twoZones = world(all().map((p) => (p.metadata.name === 'db-1' || p.metadata.name === 'db-2'
      ? pod(Number(p.metadata.name.slice(3)), { terminating: true })
      : p)));
    expect(decideEviction(pod(1, { terminating: true }), [zdb(2)], twoZones))
      .toMatchObject({ allowed: true, available: false, message: 'eviction of db-1 allowed: it is being deleted, so evicting it disrupts nothing' });
    expect(decideEviction(pod(0), [zdb(2)], world(all()))).toMatchObject({ allowed: true, available: true });
  });

  test('a reservation the deciding request could not wait out counts as unavailable; the status never sees one', () => {
    const w = world(all(), { reserved: new Set(['ns/db-1']) });
    expect(decideEviction(pod(0), [zdb(2)], w).allowed).toBe(false);
    expect(decideEviction(pod(4), [zdb(2)], w).allowed).toBe(true);
    expect(decideEviction(pod(4), [zdb(1)], w)).toMatchObject({ allowed: false, message: expect.stringMatching(/zone zone-b has 1 unavailable pod\(s\), maxUnavailable 1/) });
    expect(budgetOf(zdb(2), world(all())).budget.healthy).toBe(6);
  });

  test('dry run allows, reporting the denial; no budget: allowed; node without the zone label: denied', () => {
    const w = world(all().map((p) => (p.metadata.name === 'db-1' ? pod(1, { ready: false }) : p)));
    expect(decideEviction(pod(0), [zdb(1, true)], w)).toMatchObject({
      allowed: true,
      dryRunDenials: [expect.stringMatching(/^ZoneDisruptionBudget db: zone\(s\) zone-b/)],
    });
    const other = { ...pod(0), metadata: { ...pod(0).metadata, labels: { app: 'web' } } };
    expect(decideEviction(other, [zdb(1)], w)).toMatchObject({ allowed: true, budgets: [] });
    const bare = pod(3, { node: 'bare' });
    expect(decideEviction(bare, [zdb(1)], world([...all().slice(0, 3), bare, ...all().slice(4)])))
      .toMatchObject({ allowed: false, message: expect.stringMatching(/has no zone/) });
  });

  test('an ended pod (Failed, as a kubelet eviction leaves it) is no replica: its owner\'s replacement counts, and it may go at any time', () => {
    const failed = (p: KubeObject): KubeObject => ({
      ...p,
      status: { phase: 'Failed', reason: 'Evicted', conditions: [{ type: 'Ready', status: 'False' }] },
    });
    // a ReplicaSet of 3 in zones a, b, c; the kubelet of node-b evicted web-1-1, and web-1-3 replaced it in zone c
    const rs = WEB_REPLICA_SET;
    const web = (i: number, node: string): KubeObject => ({
      metadata: webPodMetadata(i),
      spec: { nodeName: node },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const budget = WEB_BUDGET;
    const w = world([web(0, 'node-a'), failed(web(1, 'node-b')), web(2, 'node-c'), web(3, 'node-c')], { owners: [rs] });
    expect(budgetStatus(budget, budgetOf(budget, w).budget)).toMatchObject({ expectedPods: 3, healthyPods: 3 });
    expect(decideEviction(web(0, 'node-a'), [budget], w)).toMatchObject({ allowed: true, available: true });
    expect(decideEviction(failed(web(1, 'node-b')), [budget], w)).toMatchObject({
      allowed: true,
      available: false,
      budgets: ['web'],
      message: 'eviction of web-1-1 allowed: it has ended (Failed), so evicting it disrupts nothing',
    });
    // before the replacement: one replica missing, so no other zone may lose one, but the ended pod may still go
    const short = world([web(0, 'node-a'), failed(web(1, 'node-b')), web(2, 'node-c')], { owners: [rs] });
    expect(budgetStatus(budget, budgetOf(budget, short).budget)).toMatchObject({ expectedPods: 3, healthyPods: 2 });
    expect(decideEviction(web(0, 'node-a'), [budget], short).allowed).toBe(false);
    expect(decideEviction(failed(web(1, 'node-b')), [budget], short).allowed).toBe(true);
    // a StatefulSet pod that ended is missing until recreated under its name: unavailable in its claim's zone
    const sts = world(all().map((p) => (p.metadata.name === 'db-1' ? failed(p) : p)));
    expect(zoneHealth(sts)).toEqual([['zone-a', 2, 2], ['zone-b', 2, 1], ['zone-c', 2, 2]]);
    expect(decideEviction(pod(0), [zdb(2)], sts).allowed).toBe(false);
  });

  test('a Pending pod (not started: pulling its image, say) may go while another zone is disrupted, as the Eviction API lets it past PodDisruptionBudgets', () => {
    const pending = (i: number): KubeObject => ({
      ...pod(i, { ready: false }),
      status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
    });
    const db1NotReadyDb2Pending = (p: KubeObject) => {
      if (p.metadata.name === 'db-1') return pod(1, { ready: false });
      return p.metadata.name === 'db-2' ? pending(2) : p;
    };
    const w = world(all().map(db1NotReadyDb2Pending));
    expect(zoneHealth(w)).toEqual([['zone-a', 2, 2], ['zone-b', 2, 1], ['zone-c', 2, 1]]);
    expect(decideEviction(pending(2), [zdb(2)], w)).toMatchObject({ allowed: true, available: false, message: 'eviction of db-2 allowed: it is Pending, so evicting it disrupts nothing' });
    // a Running pod not Ready is guarded as before: another zone is disrupted
    expect(decideEviction(pod(1, { ready: false }), [zdb(2)], w))
      .toMatchObject({ allowed: false, message: expect.stringMatching(/zone-c \(1 unavailable\)/) });
    // a Pending pod with no node yet has no zone either, and may still go
    expect(decideEviction({ ...pending(2), spec: {} }, [zdb(2)], w).allowed).toBe(true);
  });

  test('ReplicaSet owners: a missing pod (zone unknown) blocks every zone', () => {
    const rs = WEB_REPLICA_SET;
    const web = (i: number): KubeObject => ({
      metadata: webPodMetadata(i),
      spec: { nodeName: ['node-a', 'node-b'][i] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const budget = WEB_BUDGET;
    expect(decideEviction(web(0), [budget], world([web(0), web(1)], { owners: [rs] })).allowed).toBe(false);
    const third = { ...web(1), metadata: { ...web(1).metadata, name: 'web-1-2' } };
    expect(decideEviction(web(0), [budget], world([web(0), web(1), third], { owners: [rs] })).allowed).toBe(true);
  });
});
