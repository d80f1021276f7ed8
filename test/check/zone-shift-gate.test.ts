/** The check says when a workload's zonal-shift gate cannot move its traffic: the shift's fail-safe keeps its pods. */
import { check, deployment, ZONE_KEY, zoneSpread } from './manifests';

const GATE = { readinessGates: [{ conditionType: 'cdk8s-zones.dev/zone-in-service' }] };
const ruleOf = (d: any) => check(d).workloads[0].findings.find((f) => f.rule === 'shift-keeps-in-service');

test('gated and pinned to one zone: a shift of it keeps its pods in service, said as a warning naming the zone', () => {
  const finding = ruleOf(deployment('web', 2, { ...GATE, nodeSelector: { [ZONE_KEY]: 'a' } }));
  expect(finding).toMatchObject({ severity: 'warning', message: expect.stringMatching(/^its pods can only run in a, and it opts in to the zonal shift/) });
});

test('gated with one replica: said too', () => {
  expect(ruleOf(deployment('web', 1, GATE))?.message).toMatch(/^it runs one replica/);
});

test('gated and spread over zones, or not gated at all: nothing to say', () => {
  expect(ruleOf(deployment('web', 3, { ...GATE, ...zoneSpread('web') }))).toBeUndefined();
  expect(ruleOf(deployment('web', 3, GATE))).toBeUndefined(); // may land in one zone, may not: the fail-safe decides then
  expect(ruleOf(deployment('web', 2, { nodeSelector: { [ZONE_KEY]: 'a' } }))).toBeUndefined();
});
