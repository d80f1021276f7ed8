/**
 * The manager's graceful failovers against a fake Redis that keeps Redis's rules (graceful-failover.ts): a
 * manual failover is promoted or aborted, a replica asked again before its election retry time aborts again,
 * and a refusal is Redis's answer. Time is virtual: each test runs passes of minutes at once.
 */
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import { ReplyError } from 'ioredis';
import { FakeCluster } from './redis-fake-cluster';
import { RedisShardLayout } from '../../src/redis/layout';
import { createLogger } from '../src/log';
import { decide } from '../src/redis/decide';
import { RedisNodes } from '../src/redis/executor';
import { Clock, electionRetryMs, FAILOVER_ATTEMPT_MS, failoverBudgetMs, failoverMessages } from '../src/redis/graceful-failover';
import { RedisClusterManager } from '../src/redis/manager';
import { InventoryNode, ObservedNode } from '../src/redis/model';

const layout = RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 });
const inventory = layout.nodes.map((n, i) => ({ name: n.name, zone: n.zone, address: `10.0.0.${i}:6379` }));
const FAIL_BACK = { kind: 'failover', on: 'a-0', takeover: false };

class VirtualClock implements Clock {
  public t = 1_700_000_000_000;
  public now(): number {
    return this.t;
  }
  public async sleep(ms: number): Promise<void> {
    this.t += ms;
  }
}

/** What a replica does with the next CLUSTER FAILOVER it is sent (then it behaves as Redis would). */
type Answer = 'abort' | 'refuse' | 'no-answer';

/**
 * The nodes of a FakeCluster as the manager reaches them, with what graceful failovers need: a replica asked
 * to fail over is promoted 300 ms later, unless told otherwise (`answers`), or it started an election less than
 * Redis's retry time ago (then it aborts, as Redis does). Each node says its cluster-node-timeout and counts
 * its failover messages as CLUSTER INFO does.
 */
class FakeNodes extends RedisNodes {
  /** When each CLUSTER FAILOVER was sent, and to whom. */
  public readonly requests: { on: string; at: number }[] = [];
  public readonly answers: Answer[] = [];
  /** Replicas still syncing (linkUp false) until then. */
  public readonly syncingUntil = new Map<string, number>();
  private readonly promotions = new Map<string, number>();
  private readonly elections = new Map<string, number>();
  private readonly counters = new Map<string, { mfstart: number; authReq: number; authAck: number }>();

  constructor(
    private readonly fake: FakeCluster,
    private readonly clock: VirtualClock,
    private readonly nodeTimeoutMs: number,
  ) {
    super();
  }

  public async observe(of: readonly InventoryNode[]): Promise<ObservedNode[]> {
    this.promoteDue();
    const names = new Set(of.map((n) => n.name));
    const syncing = (name: string) => this.clock.now() < (this.syncingUntil.get(name) ?? 0);
    return this.fake.observe()
      .filter((n) => names.has(n.name))
      .map((n) => (n.reachable && syncing(n.name) ? { ...n, linkUp: false } : n));
  }

  public async call(address: string, ...args: (string | number)[]): Promise<unknown> {
    this.promoteDue();
    const name = this.fake.inventory.find((n) => n.address === address)!.name;
    const command = args.join(' ');
    const count = this.counters.get(name) ?? { mfstart: 0, authReq: 0, authAck: 0 };
    this.counters.set(name, count);
    if (command === 'ROLE') return [this.fake.role(name) === 'master' ? 'master' : 'slave'];
    if (command === 'CONFIG GET cluster-node-timeout') return ['cluster-node-timeout', String(this.nodeTimeoutMs)];
    if (command === 'CLUSTER INFO') {
      return `cluster_state:ok\r\ncluster_stats_messages_mfstart_sent:${count.mfstart}\r\n` +
        `cluster_stats_messages_auth-req_sent:${count.authReq}\r\ncluster_stats_messages_auth-ack_received:${count.authAck}\r\n`;
    }
    if (command !== 'CLUSTER FAILOVER') throw new Error(`the fake does not know ${command}`);
    const now = this.clock.now();
    this.requests.push({ on: name, at: now });
    if (this.fake.role(name) === 'master') throw new ReplyError('ERR You should send CLUSTER FAILOVER to a replica');
    const answer = this.answers.shift();
    if (answer === 'refuse') throw new ReplyError('ERR Master is down or failed, please use CLUSTER FAILOVER FORCE');
    count.mfstart++;
    const lastElection = this.elections.get(name);
    const withinElectionRetry = lastElection !== undefined
      && now - lastElection <= electionRetryMs(this.nodeTimeoutMs);
    if (withinElectionRetry) return 'OK'; // Redis: election expired, aborts
    this.elections.set(name, now);
    count.authReq += 5;
    if (answer === 'abort') {
      count.authAck += 1; // one vote of the two it needs
      return 'OK';
    }
    count.authAck += 2;
    this.promotions.set(name, now + 300);
    if (answer === 'no-answer') throw new Error('Command timed out');
    return 'OK';
  }

  public close(): void {}

  private promoteDue(): void {
    for (const [name, at] of this.promotions) {
      if (this.clock.now() < at) continue;
      this.promotions.delete(name);
      this.fake.apply({ kind: 'failover', on: name, takeover: false });
    }
  }
}

/** Zone a's master failed over to b-0 and back as its replica: the manager's next step is the fail-back to a-0. */
function failedOver(nodeTimeoutMs = 5000) {
  const fake = new FakeCluster(inventory);
  fake.run((nodes) => decide(layout, nodes));
  fake.kill('a-0');
  fake.autoFailover();
  fake.start('a-0');
  expect([fake.role('a-0'), fake.role('b-0')]).toEqual(['replica', 'master']);
  const clock = new VirtualClock();
  const nodes = new FakeNodes(fake, clock, nodeTimeoutMs);
  const logged: any[] = [];
  const log = createLogger({ write: (line) => logged.push(JSON.parse(line)) });
  const manager = new RedisClusterManager(layout, inventory, { nodes, clock, log });
  const failovers = () => logged
    .filter((l) => l.msg === 'redis failover')
    .map((l) => ({ level: l.level, outcome: l.outcome, ...(l.error ? { error: l.error } : {}) }));
  return { fake, clock, nodes, manager, logged, failovers };
}

describe('graceful failovers', () => {
  test('a pass that runs out just as the fail-back comes due says so, no warning; the next pass fails back', async () => {
    const { fake, clock, nodes, manager, logged, failovers } = failedOver();
    nodes.syncingUntil.set('a-0', clock.now() + 5050); // in sync 50 ms before the pass's last look
    const first = await manager.converge({ timeoutMs: 5000 });
    expect(first.nextSteps).toEqual([FAIL_BACK]);
    expect(nodes.requests).toEqual([]);
    expect(logged.filter((l) => l.level === 'warn')).toEqual([]);
    expect(logged.filter((l) => l.msg.startsWith('redis: ')).map((l) => [l.level, l.msg, l.steps])).toEqual([
      ['info', 'redis: pass ended before its next steps were tried', [FAIL_BACK]],
    ]);

    const second = await manager.converge({ timeoutMs: 5000 });
    expect(second.healthy).toBe(true);
    expect(fake.role('a-0')).toBe('master');
    expect(failovers()).toEqual([{ level: 'info', outcome: 'promoted' }]);
    expect(logged.find((l) => l.msg === 'redis failover')).toMatchObject({
      on: 'a-0',
      ms: 300,
      nodeTimeoutMs: 5000,
      messages: { pauseRequests: 1, votes: 2 },
    });
  });

  test.each([
    // node timeout, retry after: the manual failover's 5 s, then 2 x max(2 x node timeout, 2 s)
    [1000, 9000],
    [5000, 25000],
    [15000, 65000],
  ])('an aborted failover is asked again once Redis would run another election (node timeout %d ms: %d ms later), and is not asked before', async (nodeTimeoutMs, retryMs) => {
    const { fake, nodes, manager, logged, failovers } = failedOver(nodeTimeoutMs);
    nodes.answers.push('abort');
    const state = await manager.converge({ timeoutMs: failoverBudgetMs(nodeTimeoutMs) });
    expect(state.healthy).toBe(true);
    expect(fake.role('a-0')).toBe('master');
    expect(failovers()).toEqual([{ level: 'warn', outcome: 'aborted' }, { level: 'info', outcome: 'promoted' }]);
    const [aborted] = logged.filter((l) => l.msg === 'redis failover');
    expect(aborted).toMatchObject({ on: 'a-0', nodeTimeoutMs, messages: { pauseRequests: 1, voteRequests: 5, votes: 1 } });
    expect(aborted.ms).toBeGreaterThan(FAILOVER_ATTEMPT_MS); // Redis's 5 s, and a last look after them
    const [first, retry] = nodes.requests;
    expect(nodes.requests.length).toBe(2);
    expect(retry.at - first.at).toBeGreaterThanOrEqual(retryMs);
    expect(retry.at - first.at).toBeLessThan(retryMs + 200); // the first look after it (every 100 ms)
    expect(logged.filter((l) => l.msg.startsWith('redis: '))).toEqual([]);
  });

  test('a pass that ends while an aborted failover waits for its retry warns that it tried; the next pass retries on time', async () => {
    const { fake, clock, nodes, manager, logged } = failedOver(5000);
    nodes.answers.push('abort');
    const start = clock.now();
    const first = await manager.converge({ timeoutMs: 10_000 });
    expect(first.nextSteps).toEqual([FAIL_BACK]);
    expect(clock.now() - start).toBeLessThan(10_000); // its retry is due after the pass: it ends at once
    expect(logged.filter((l) => l.msg.startsWith('redis: ')).map((l) => [l.level, l.msg, l.tried, l.retries])).toEqual([
      ['warn', 'redis: timed out with steps left', [FAIL_BACK], [{ step: FAIL_BACK, retryInMs: 25_000 - (clock.now() - start) }]],
    ]);
    // the upgrade's failover does not ask either
    await expect(manager.failover('a-0')).rejects.toThrow(/^failover to a-0 not retried before /);
    expect(nodes.requests.length).toBe(1);

    const second = await manager.converge({ timeoutMs: 60_000 });
    expect(second.healthy).toBe(true);
    expect(fake.role('a-0')).toBe('master');
    expect(nodes.requests[1].at - nodes.requests[0].at).toBeGreaterThanOrEqual(25_000);
  });

  test('a failover Redis refuses (it started nothing) is asked again a second later, not after an election\'s retry time', async () => {
    const { fake, nodes, manager, failovers, logged } = failedOver(5000);
    nodes.answers.push('refuse');
    expect((await manager.converge({ timeoutMs: 10_000 })).healthy).toBe(true);
    expect(fake.role('a-0')).toBe('master');
    expect(failovers()).toEqual([
      { level: 'warn', outcome: 'refused', error: 'ERR Master is down or failed, please use CLUSTER FAILOVER FORCE' },
      { level: 'info', outcome: 'promoted' },
    ]);
    const [first, retry] = nodes.requests;
    expect(retry.at - first.at).toBeGreaterThanOrEqual(1000);
    expect(retry.at - first.at).toBeLessThan(1200);
    expect(logged.filter((l) => l.msg.startsWith('redis: '))).toEqual([]);
  });

  test('no answer to CLUSTER FAILOVER is no refusal: the manager looks for the outcome and does not ask twice', async () => {
    const { fake, nodes, manager, failovers } = failedOver(5000);
    nodes.answers.push('no-answer');
    expect((await manager.converge({ timeoutMs: 10_000 })).healthy).toBe(true);
    expect(fake.role('a-0')).toBe('master');
    expect(failovers()).toEqual([{ level: 'info', outcome: 'promoted' }]);
    expect(nodes.requests.length).toBe(1);
  });

  test('the upgrade\'s failover: resolves once promoted, throws when Redis aborted it', async () => {
    const { fake, nodes, manager } = failedOver(5000);
    nodes.answers.push('abort');
    await expect(manager.failover('a-0')).rejects.toThrow(/^failover to a-0 aborted after \d+ ms$/);
    expect(fake.role('a-0')).toBe('replica');
    const other = failedOver(5000);
    const after = await other.manager.failover('a-0');
    expect(after.find((n) => n.name === 'a-0')?.view?.find((e) => e.flags.includes('myself'))?.flags).toContain('master');
  });
});

describe('failover timing and messages', () => {
  test('Redis\'s election retry time: twice the failover timeout, max(2 x node timeout, 2 s)', () => {
    expect([500, 1000, 5000, 15000].map(electionRetryMs)).toEqual([4000, 4000, 20000, 60000]);
  });

  test('a failover\'s budget: an attempt (5 s and the last look), the retry time after an abort, and the retry', () => {
    expect(failoverBudgetMs(5000)).toBe(5000 + 20000 + 6000);
    expect(failoverBudgetMs(15000)).toBe(5000 + 60000 + 6000);
  });

  test('the failover counters of CLUSTER INFO (absent: none sent)', () => {
    const info = 'cluster_state:ok\r\ncluster_stats_messages_ping_sent:10\r\ncluster_stats_messages_mfstart_sent:1\r\n' +
      'cluster_stats_messages_auth-req_sent:5\r\ncluster_stats_messages_auth-ack_received:2\r\ncluster_stats_messages_auth-req_received:3\r\n';
    expect(failoverMessages(info)).toEqual({ pauseRequests: 1, voteRequests: 5, votes: 2 });
    expect(failoverMessages('cluster_state:ok\r\n')).toEqual({ pauseRequests: 0, voteRequests: 0, votes: 0 });
  });
});
