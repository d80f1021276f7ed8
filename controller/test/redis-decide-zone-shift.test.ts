// fast-check is a dev dependency of the workspace root, whose jest runs these tests
// eslint-disable-next-line import/no-extraneous-dependencies
import * as fc from 'fast-check';
import { cluster, converge, expectPlanned, inventoryOf, three, zones } from './redis-decide-fixtures';
import { FakeCluster } from './redis-fake-cluster';
import { RedisShardLayout } from '../../src/redis/layout';
import { decide } from '../src/redis/decide';

describe('Redis cluster manager decisions: a zone out of service (ZoneShift)', () => {
  const masterZones = (fake: FakeCluster, layout = three) => layout.nodes
    .filter((n) => fake.role(n.name) === 'master')
    .map((n) => n.zone);

  test('its masters fail over gracefully to a replica in another zone, and not back while the shift lasts; back once it ends', () => {
    const fake = cluster();
    const shifted = { outOfServiceZones: new Set(['a']) };
    expect(decide(three, fake.observe(), shifted).steps).toEqual([{ kind: 'failover', on: 'b-0', takeover: false }]);
    converge(fake, three, shifted);
    expect(masterZones(fake)).not.toContain('a');
    expect(decide(three, fake.observe(), shifted).steps).toEqual([]);
    expect(converge(fake)).toEqual([[{ kind: 'failover', on: 'a-0', takeover: false }]]);
    expectPlanned(fake);
  });

  test('a master with no replica in sync elsewhere stays, and the issue says so', () => {
    const fake = cluster();
    fake.kill('b-0'); // shard 0's only replica
    const d = decide(three, fake.observe(), { outOfServiceZones: new Set(['a']) });
    expect(d.steps.filter((s) => s.kind === 'failover')).toEqual([]);
    expect(d.issues).toContainEqual({ kind: 'zone-shifted', message: 'master a-0 stays in zone a, out of service: no replica of it in sync in another zone' });
  });

  test('property: any zone shifted, after any failovers: every master leaves it, the data stays served, and all comes back to plan when it ends', () => {
    const layout = RedisShardLayout.plan({ zones, masters: 5, replicasPerMaster: 1 });
    fc.assert(fc.property(fc.constantFrom(...zones), fc.subarray(zones, { maxLength: 1 }), (zone, lostBefore) => {
      const fake = new FakeCluster(inventoryOf(layout));
      converge(fake, layout);
      for (const z of lostBefore) { // an earlier zone loss left masters off plan
        const names = layout.nodes.filter((n) => n.zone === z).map((n) => n.name);
        names.forEach((n) => fake.kill(n));
        fake.autoFailover();
        names.forEach((n) => fake.start(n));
      }
      const shifted = { outOfServiceZones: new Set([zone]) };
      converge(fake, layout, shifted);
      expect(masterZones(fake, layout)).not.toContain(zone);
      expect(fake.owner.every((o) => o !== undefined)).toBe(true);
      converge(fake, layout);
      expectPlanned(fake, layout);
    }), { numRuns: 30 });
  });
});
