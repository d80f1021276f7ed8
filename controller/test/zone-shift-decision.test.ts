import { ZONE_IN_SERVICE_CONDITION, ZONE_SHIFT_TAINT_KEY } from '../../src/contract/zone-shift';
import { NODE_POOL_SHIFT_ANNOTATION } from '../../src/contract/zone-shift-node-pools';
import { KubeObject } from '../src/kube/api';
import { decideZoneGate, zoneGatePatch } from '../src/reconcilers/zone-gate-decision';
import { nodeTaints, shiftChanges, shiftStatus, shiftUndone } from '../src/reconcilers/zone-shift-decision';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const keys = [ZONE_KEY];
const NOW = Date.parse('2026-11-27T11:00:00Z');
const shift = (name: string, zone: string, extra: object = {}, meta: object = {}) => ({
  metadata: { name, creationTimestamp: '2026-11-27T10:00:00Z', generation: 1, ...meta },
  spec: { zone, expiresAt: '2026-11-27T12:00:00Z', ...extra },
});
const node = (name: string, zone: string, taints?: object[]): KubeObject => ({
  metadata: { name, labels: { [ZONE_KEY]: zone } },
  spec: { taints },
});
const OURS = (zone: string) => ({ key: ZONE_SHIFT_TAINT_KEY, value: zone, effect: 'NoSchedule' });
const OTHER = { key: 'dedicated', value: 'db', effect: 'NoSchedule' };
const pod = (name: string, namespace: string, nodeName: string, gate?: string, gated = true): KubeObject => ({
  metadata: { name, namespace },
  spec: { nodeName, readinessGates: gated ? [{ conditionType: ZONE_IN_SERVICE_CONDITION }] : undefined },
  status: { conditions: gate ? [{ type: ZONE_IN_SERVICE_CONDITION, status: gate }] : [] },
});

describe('the readiness gate of a zonal shift', () => {
  test('True outside a shifted zone, False inside; nothing written when it already is; nothing for a pod without the gate', () => {
    const out = new Set(['a']);
    expect(decideZoneGate(pod('p', 'ns', 'n1'), 'b', out)).toMatchObject({ kind: 'set', status: 'True', reason: 'ZoneInService' });
    expect(decideZoneGate(pod('p', 'ns', 'n1'), 'a', out)).toMatchObject({ kind: 'set', status: 'False', reason: 'ZoneShifted' });
    expect(decideZoneGate(pod('p', 'ns', 'n1', 'False'), 'a', out)).toEqual({ kind: 'none' });
    expect(decideZoneGate(pod('p', 'ns', 'n1', 'False'), 'a', new Set())).toMatchObject({ kind: 'set', status: 'True' });
    expect(decideZoneGate(pod('p', 'ns', 'n1', undefined, false), 'a', out)).toEqual({ kind: 'none' });
    const notBound = { ...pod('p', 'ns', 'n1'), spec: { readinessGates: [{ conditionType: ZONE_IN_SERVICE_CONDITION }] } };
    expect(decideZoneGate(notBound, undefined, out)).toEqual({ kind: 'none' });
    // a node without a zone: no shift can apply
    expect(decideZoneGate(pod('p', 'ns', 'n1'), undefined, out)).toMatchObject({ kind: 'set', status: 'True', message: 'its node has no zone: no shift applies' });
  });

  test('the fail-safe: a pod kept in a shifted zone stays True, saying why; written again when it may leave', () => {
    const out = new Set(['a']);
    const why = 'the last pods that can serve Deployment/web in ns';
    const kept = decideZoneGate(pod('p', 'ns', 'n1'), 'a', out, why);
    expect(kept).toEqual({ kind: 'set', status: 'True', reason: 'ZoneShiftFailSafe', message: expect.stringContaining(why) });
    const keptPod = (status: string, reason: string) => ({
      ...pod('p', 'ns', 'n1'),
      status: { conditions: [{ type: ZONE_IN_SERVICE_CONDITION, status, reason }] },
    });
    // already kept: nothing to write; once a pod serves elsewhere, out of service
    expect(decideZoneGate(keptPod('True', 'ZoneShiftFailSafe'), 'a', out, why)).toEqual({ kind: 'none' });
    expect(decideZoneGate(keptPod('True', 'ZoneShiftFailSafe'), 'a', out)).toMatchObject({ kind: 'set', status: 'False' });
    // True because its zone was in service: kept now, which its reason says
    expect(decideZoneGate(keptPod('True', 'ZoneInService'), 'a', out, why)).toMatchObject({ kind: 'set', reason: 'ZoneShiftFailSafe' });
    // the shift over: in service, no longer held by the fail-safe
    expect(decideZoneGate(keptPod('True', 'ZoneShiftFailSafe'), 'a', new Set())).toMatchObject({ kind: 'set', reason: 'ZoneInService' });
  });

  test('the patch: the condition alone, merged by type', () => {
    const decision = decideZoneGate(pod('p', 'ns', 'n1'), 'a', new Set(['a']));
    if (decision.kind !== 'set') throw new Error('expected set');
    expect(zoneGatePatch(decision, NOW)).toEqual({
      status: {
        conditions: [{
          type: ZONE_IN_SERVICE_CONDITION,
          status: 'False',
          reason: 'ZoneShifted',
          message: expect.any(String),
          lastTransitionTime: '2026-11-27T11:00:00.000Z',
        }],
      },
    });
  });
});

describe('the zone shift taint', () => {
  test('added to the nodes of a zone shifted cluster-wide, beside their other taints; removed once no shift holds it', () => {
    const shifts = [shift('a', 'a')];
    expect(nodeTaints(node('n1', 'a', [OTHER]), shifts, keys, NOW)).toEqual([OTHER, OURS('a')]);
    expect(nodeTaints(node('n1', 'a', [OTHER, OURS('a')]), shifts, keys, NOW)).toBeUndefined();
    expect(nodeTaints(node('n2', 'b', [OTHER]), shifts, keys, NOW)).toBeUndefined();
    // expired, cancelled, or scoped to namespaces: no taint
    expect(nodeTaints(node('n1', 'a', [OTHER, OURS('a')]), shifts, keys, Date.parse('2026-11-27T12:00:00Z'))).toEqual([OTHER]);
    expect(nodeTaints(node('n1', 'a', [OURS('a')]), [shift('a', 'a', {}, { deletionTimestamp: '2026-11-27T10:30:00Z' })], keys, NOW)).toEqual([]);
    expect(nodeTaints(node('n1', 'a', [OURS('a')]), [shift('a', 'a', { namespaces: ['shop'] })], keys, NOW)).toEqual([]);
    // a stale value of ours is corrected, never duplicated
    expect(nodeTaints(node('n1', 'a', [OURS('b'), OTHER]), shifts, keys, NOW)).toEqual([OTHER, OURS('a')]);
  });
});

describe('a shift\'s status and undoing', () => {
  const nodes = [node('n1', 'a', [OURS('a')]), node('n2', 'b')];
  const zoneOfPod = (p: KubeObject) => ({ n1: 'a', n2: 'b' } as Record<string, string>)[p.spec!.nodeName];
  const pods = [pod('web-1', 'shop', 'n1', 'False'), pod('web-2', 'shop', 'n2', 'True'), pod('log-1', 'logs', 'n1', 'False'), pod('plain', 'shop', 'n1', undefined, false)];

  test('Active: the tainted nodes and the pods held out of its namespaces', () => {
    const s = shift('a', 'a');
    const changed = shiftChanges(s, { nodes, pods, zoneOfPod, topologyKeys: keys });
    expect(changed).toEqual([
      { kind: 'Node', name: 'n1', change: `taint ${ZONE_SHIFT_TAINT_KEY}=a:NoSchedule` },
      { kind: 'Pod', namespace: 'logs', name: 'log-1', change: `condition ${ZONE_IN_SERVICE_CONDITION} False` },
      { kind: 'Pod', namespace: 'shop', name: 'web-1', change: `condition ${ZONE_IN_SERVICE_CONDITION} False` },
    ]);
    expect(shiftStatus(s, changed, undefined, NOW)).toEqual({
      observedGeneration: 1, phase: 'Active', message: 'zone a out of service for the whole cluster until 2026-11-27T12:00:00Z', changed,
    });
    const shopOnly = shift('a', 'a', { namespaces: ['shop'] });
    expect(shiftChanges(shopOnly, { nodes, pods, zoneOfPod, topologyKeys: keys }).map((c) => c.name)).toEqual(['n1', 'web-1']);
  });

  test('the pods the fail-safe keeps in service are listed with why; they leave nothing to undo', () => {
    const s = shift('a', 'a');
    const why = 'zone a is out of service, but this pod is one of the last pods that can serve Deployment/web in shop';
    const kept: KubeObject = {
      ...pod('web-2', 'shop', 'n1'),
      status: { conditions: [{ type: ZONE_IN_SERVICE_CONDITION, status: 'True', reason: 'ZoneShiftFailSafe', message: why }] },
    };
    expect(shiftChanges(s, { nodes: [], pods: [kept], zoneOfPod: () => 'a', topologyKeys: keys })).toEqual([
      { kind: 'Pod', namespace: 'shop', name: 'web-2', change: `kept in service by the fail-safe: ${why}` },
    ]);
    expect(shiftUndone(s, [], { nodes: [], pods: [kept], zoneOfPod: () => 'a', topologyKeys: keys }, NOW)).toBe(true);
  });

  test('Ended: undoing while something remains, then undone; its end time kept', () => {
    const s = shift('a', 'a');
    const later = Date.parse('2026-11-27T12:00:05Z');
    const undoing = shiftStatus(s, shiftChanges(s, { nodes, pods, zoneOfPod, topologyKeys: keys }), undefined, later);
    expect(undoing).toMatchObject({ phase: 'Ended', message: 'expired at 2026-11-27T12:00:00Z; undoing', endedAt: '2026-11-27T12:00:05.000Z' });
    expect(shiftStatus(s, [], undoing, later + 3000)).toMatchObject({
      phase: 'Ended',
      message: expect.stringMatching(/everything it changed is undone$/),
      changed: [],
      endedAt: '2026-11-27T12:00:05.000Z',
    });
  });

  test('Invalid: nothing done, the rule said', () => {
    const tooLong = shift('x', 'a', { expiresAt: '2026-12-27T10:00:00Z' });
    expect(shiftStatus(tooLong, [], undefined, NOW)).toMatchObject({
      phase: 'Invalid',
      message: expect.stringMatching(/at most 72 hours.*; nothing is done$/),
      changed: [],
    });
  });

  test('Karpenter\'s NodePools the shift left its zone out of are listed, and it is undone only once they are given back', () => {
    const s = shift('a', 'a');
    const requirement = { key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['a'] };
    const pool = (recorded: boolean): KubeObject => ({
      metadata: {
        name: 'default',
        annotations: recorded ? { [NODE_POOL_SHIFT_ANNOTATION]: JSON.stringify(requirement) } : {},
      },
      spec: { template: { spec: { requirements: recorded ? [requirement] : [] } } },
    });
    const world = (recorded: boolean) =>
      ({ nodes: [], pods: [], nodePools: [pool(recorded)], zoneOfPod: () => 'a', topologyKeys: keys });
    expect(shiftChanges(s, world(true))).toEqual([
      { kind: 'NodePool', name: 'default', change: 'requirement topology.kubernetes.io/zone NotIn [a]' },
    ]);
    const cancelled = shift('a', 'a', {}, { deletionTimestamp: '2026-11-27T10:30:00Z' });
    expect(shiftUndone(cancelled, [], world(true), NOW)).toBe(false);
    expect(shiftUndone(cancelled, [], world(false), NOW)).toBe(true);
    expect(shiftUndone(cancelled, [shift('a2', 'a')], world(true), NOW)).toBe(true); // held by the other
  });

  test('a cancelled shift is undone once its taints and gates are gone, unless another shift of the zone holds them', () => {
    const cancelled = shift('a', 'a', {}, { deletionTimestamp: '2026-11-27T10:30:00Z' });
    expect(shiftUndone(cancelled, [], { nodes, pods, zoneOfPod, topologyKeys: keys }, NOW)).toBe(false);
    const clean = [node('n1', 'a'), node('n2', 'b')];
    const released = pods.map((p) => ({
      ...p,
      status: { conditions: [{ type: ZONE_IN_SERVICE_CONDITION, status: 'True' }] },
    }));
    expect(shiftUndone(cancelled, [], { nodes: clean, pods: released, zoneOfPod, topologyKeys: keys }, NOW)).toBe(true);
    const held = { nodes, pods, zoneOfPod, topologyKeys: keys };
    expect(shiftUndone(cancelled, [shift('a2', 'a')], held, NOW)).toBe(true); // held by the other
    const shopShift = shift('a2', 'a', { namespaces: ['shop'] });
    const logsHeld = { nodes: clean, pods, zoneOfPod, topologyKeys: keys };
    expect(shiftUndone(cancelled, [shopShift], logsHeld, NOW)).toBe(false); // logs' pod still held
  });
});
