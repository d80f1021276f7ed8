/**
 * The Redis Cluster proof with real redis-server processes: 3 masters x 1 replica over zones a, b, c as
 * RedisShardLayout plans them, started as the synthesized pods start them (an awkward password required,
 * from the init container's auth.conf), bootstrapped by the manager (through its CLI), surviving the loss of a
 * whole zone with no acknowledged key lost: the manager, with the failover policy of the synthesized layout
 * ConfigMap, fails the zone's master over within the node timeout (Redis alone takes about 1.6 x the node
 * timeout + 0.7 s); rebalanced when the zone comes back; one master lost; a master lost with all its replicas
 * reported, then fixed.
 */
import { keySlots, missingKeys, slotOwners, untilServedAndWritable, writeKeys } from './redis-keys';
import { buildController, keepConverging, runCli } from './redis-manager-runs';
import { AWKWARD_PASSWORD, RedisProcesses } from './redis-processes';
import { createLogger } from '../../../controller/src/log';
import { failoverOptions, RedisClusterManager } from '../../../controller/src/redis/manager';
import { RedisRole, RedisShardLayout } from '../../../src/redis/layout';

const NODE_TIMEOUT_MS = 1000;
const layout = RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 });
const redis = new RedisProcesses(NODE_TIMEOUT_MS, AWKWARD_PASSWORD);
const password = AWKWARD_PASSWORD;
let manager: RedisClusterManager;
let inventoryFile: string;
const acked = new Map<string, string>();
/** The manager's log lines (the steps it took). */
const logged: any[] = [];

beforeAll(async () => {
  buildController();
  await redis.addLayout(layout);
  inventoryFile = redis.writeInventory(layout);
  manager = new RedisClusterManager(layout, redis.inventory, {
    timeoutMs: 30_000,
    password,
    ...failoverOptions(redis.layoutConfigMap),
    log: createLogger({ write: (line) => logged.push(JSON.parse(line)) }),
  });
});
afterAll(async () => {
  manager?.close();
  await redis.close();
});

const address = (name: string) => redis.inventory.find((n) => n.name === name)!.address;
const live = () => redis.live();

async function allSlotsServedAndWritable(prefix: string): Promise<void> {
  const { acked: replicated } = await untilServedAndWritable(redis, prefix).catch(async (e) => {
    throw new Error(`${e.message}: ${JSON.stringify(await manager.state())}`);
  });
  for (const [k, v] of replicated) acked.set(k, v);
}

function expectPlanned(state: NonNullable<ReturnType<typeof runCli>['state']>) {
  expect({ healthy: state.healthy, issues: state.issues, nextSteps: state.nextSteps })
    .toEqual({ healthy: true, issues: [], nextSteps: [] });
  expect(state.slotsServed).toBe(16384);
  for (const n of state.nodes) {
    expect([n.name, n.role]).toEqual([n.name, n.plannedRole]);
    if (n.role === RedisRole.REPLICA) expect(layout.node(n.master!).shard).toBe(n.plannedShard);
  }
  expect(state.mastersPerZone).toEqual({ a: 1, b: 1, c: 1 });
}

test('without the password the CLI reaches no node', () => {
  const denied = runCli(['redis', 'state', '--inventory', inventoryFile]);
  expect(denied.code).toBe(1);
  expect(denied.state!.nodes.map((n) => n.reachable)).toEqual(layout.nodes.map(() => false));
});

test('the CLI bootstraps the cluster to the planned layout', async () => {
  const before = runCli(['redis', 'state', '--inventory', inventoryFile, ...redis.cliAuth]);
  expect(before.code).toBe(1);
  expect(before.state!.slotsServed).toBe(0);
  expect(before.state!.nextSteps.map((s) => s.kind)).toEqual(['meet', 'meet', 'meet', 'meet', 'meet']);

  const result = runCli(['redis', 'reconcile', '--inventory', inventoryFile, '--timeout', '30s', ...redis.cliAuth]);
  expect(result.problems).toEqual([]);
  expect(result.code).toBe(0);
  expectPlanned(result.state!);
  const owners = await slotOwners(address('a-0'), password);
  for (const shard of layout.shards) {
    expect(new Set(owners.slice(shard.slotStart, shard.slotEnd + 1))).toEqual(new Set([address(shard.master)]));
  }
});

test('keys written with WAIT 1 are acknowledged by a replica', async () => {
  const { written, acked: replicated } = await writeKeys(await slotOwners(address('a-0'), password), 'before', 3000, password);
  expect(written.size).toBe(3000);
  expect(replicated.size).toBe(3000);
  for (const [k, v] of replicated) acked.set(k, v);
});

test('losing zone a: the manager fails its master over within about the node timeout; writes succeed, no acknowledged key is lost', async () => {
  // the construct's default
  expect(failoverOptions(redis.layoutConfigMap)).toEqual({ zoneLossFailoverAfterMs: NODE_TIMEOUT_MS / 4 });
  const running = keepConverging(manager);
  let recovery: Awaited<ReturnType<typeof untilServedAndWritable>>;
  try {
    expect(await redis.killZone('a')).toEqual(['a-0', 'a-1']);
    recovery = await untilServedAndWritable(redis, 'during-a-loss');
  } finally {
    await running.stop();
  }
  for (const [k, v] of recovery.acked) acked.set(k, v);
  // Redis alone waits the node timeout before it even suspects a node (PFAIL), then for a vote: ~2.1 s here
  expect(recovery.ms).toBeLessThan(1.5 * NODE_TIMEOUT_MS);
  const steps = logged.filter((l) => l.msg === 'redis step').map((l) => l.step);
  expect(steps).toEqual([{ kind: 'force-failover', on: 'b-0', master: 'a-0', zone: 'a' }]);
  expect(logged.filter((l) => l.level === 'warn')).toEqual([]);
  expect(await missingKeys(live(), acked, password)).toEqual([]);
  const state = await manager.state();
  expect(state.issues.filter((i) => i.kind === 'unreachable').map((i) => i.message)).toEqual([
    expect.stringMatching(/^a-0 /), expect.stringMatching(/^a-1 /),
  ]);
  // b-0, the replica of a-0's shard, took over: zone b now holds 2 of 3 masters
  expect(state.mastersPerZone).toEqual({ a: 0, b: 2, c: 1 });
});

test('zone a back: the manager fails masters back so no zone holds a majority', async () => {
  await redis.start('a-0');
  await redis.start('a-1');
  // rebalance waits for a-0 to rejoin as a replica in sync, then fails over to it
  const rebalanced = runCli(['redis', 'rebalance', '--inventory', inventoryFile, '--timeout', '30s', ...redis.cliAuth]);
  expect([rebalanced.code, rebalanced.problems]).toEqual([0, []]);
  expectPlanned(rebalanced.state!);
  expect(await missingKeys(redis.inventory, acked, password)).toEqual([]);
});

test('losing one master only: its replica takes over; back, it is master again', async () => {
  await redis.kill('b-1'); // master of shard 1
  await allSlotsServedAndWritable('during-b1-loss');
  expect(await missingKeys(live(), acked, password)).toEqual([]);
  await redis.start('b-1');
  expectPlanned(await manager.converge());
  expect(await missingKeys(redis.inventory, acked, password)).toEqual([]);
});

test('losing a master and all its replicas is reported as lost slots; fix serves them again (empty)', async () => {
  const shard = layout.shards[2];
  expect([shard.master, ...shard.replicas]).toEqual(['c-1', 'a-1']);
  await redis.kill('c-1');
  await redis.kill('a-1');
  let state = await manager.state();
  for (const deadline = Date.now() + 10_000; !state.issues.some((i) => i.kind === 'slots-lost') && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 200));
    state = await manager.state();
  }
  expect(state.healthy).toBe(false);
  expect(state.issues.find((i) => i.kind === 'slots-lost')?.message)
    .toMatch(new RegExp(`^master c-1 failed with no replica left: slots ${shard.slotStart}-${shard.slotEnd} are not served`));

  // The nodes are replaced by empty ones (new ids at the same addresses).
  await redis.start('c-1', true);
  await redis.start('a-1', true);
  const reconciled = await manager.converge({ timeoutMs: 5_000 });
  expect(reconciled.issues.map((i) => i.kind)).toContain('slots-unassigned'); // reconcile never gives away slots
  const fixed = runCli(['redis', 'fix', '--inventory', inventoryFile, '--timeout', '30s', ...redis.cliAuth]);
  expect([fixed.code, fixed.problems]).toEqual([0, []]);
  expectPlanned(fixed.state!);
  const missing = await missingKeys(redis.inventory, acked, password);
  expect(missing.length).toBeGreaterThan(0); // shard 2's keys are gone, as reported
  const slots = await keySlots(address('a-0'), missing, password);
  expect(slots.every((s) => s >= shard.slotStart && s <= shard.slotEnd)).toBe(true);
});
