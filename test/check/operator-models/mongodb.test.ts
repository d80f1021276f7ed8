/**
 * The MongoDB Community operator's MongoDBCommunity read through its model (rows/mongodb-community.ts): data members
 * and arbiters, all voters, and the statefulSet override.
 */
import { allZones, check, errors, hardZoneSpread, row, skippedMessages } from './helpers';

const mongo = (spec: object) => ({
  apiVersion: 'mongodbcommunity.mongodb.com/v1',
  kind: 'MongoDBCommunity',
  metadata: { name: 'users', namespace: 'db' },
  spec: { type: 'ReplicaSet', version: '7.0.12', ...spec },
});
const spreadOverride = { spec: { template: { spec: { topologySpreadConstraints: [hardZoneSpread({ app: 'users-svc' })] } } } };

test('3 members spread hard over the zones by the override: a majority of votes and of data members left, survives', () => {
  const r = check(mongo({ members: 3, statefulSet: spreadOverride }));
  expect(row(r, 'MongoDBCommunity', 'users')).toMatchObject({ survives: allZones(true), members: ['StatefulSet/db/users'] });
  expect(row(r, 'MongoDBCommunity', 'users').neededBecause).toContain('w:"majority" writes');
});

test('3 members and no spread: the operator adds none, so one zone may hold every member', () => {
  const system = row(check(mongo({ members: 3 })), 'MongoDBCommunity', 'users');
  expect(system.survives).toEqual(allZones(false));
  expect(errors(system)[0].message).toContain('leaves 0 of its 3 voters');
});

test('arbiters: a second StatefulSet from the same template, voting; w:"majority" is then not the default write concern', () => {
  const r = check(mongo({ members: 2, arbiters: 1, statefulSet: spreadOverride }));
  expect(row(r, 'StatefulSet', 'users-arb')).toMatchObject({ replicas: 1, zoneGroup: 'users' });
  const because = row(r, 'MongoDBCommunity', 'users').neededBecause;
  expect(because).toContain('(a majority of the votes, arbiters\' included): 3 voters');
  expect(because).not.toContain('w:"majority"');
});

test('the override\'s replicas win over members; no members at all is named', () => {
  expect(row(check(mongo({ members: 3, statefulSet: { spec: { replicas: 5 } } })), 'StatefulSet', 'users').replicas).toBe(5);
  expect(skippedMessages(check(mongo({})))).toEqual(['MongoDBCommunity db/users sets no spec.members: not checked']);
});
