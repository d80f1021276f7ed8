/**
 * The Redis cluster manager: observe, decide, act, until the cluster matches the planned layout (or
 * nothing more can be done). Used by the `redis` CLI (static inventory) and, with pods as inventory, by
 * the Kubernetes reconciler.
 */
import { FAILOVER_POLICY_KEY, parseFailoverPolicy } from '../../../src/contract/redis';
import { RedisShardLayout } from '../../../src/redis/layout';
import { Logger } from '../log';
import { ClusterAnalysis } from './cluster-analysis';
import { ClusterState, decide, DecideOptions, summarize } from './decide';
import { execute, RedisNodes, until } from './executor';
import { InventoryNode, isMaster, ObservedNode, self } from './model';
import { Step } from './steps';

export interface ManagerOptions extends DecideOptions {
  readonly password?: string;
  /** Give up after this long (default 60 s). */
  readonly timeoutMs?: number;
  readonly log?: Logger;
}

/**
 * The manager's options from the data of a cluster's layout ConfigMap: its failover policy (`failover.json`).
 * A ConfigMap synthesized before that key existed has none: failovers are then left to Redis.
 */
export function failoverOptions(layoutConfigMapData: { readonly [key: string]: string } | undefined): Pick<DecideOptions, 'zoneLossFailoverAfterMs'> {
  const text = layoutConfigMapData?.[FAILOVER_POLICY_KEY];
  return text === undefined ? {} : { zoneLossFailoverAfterMs: parseFailoverPolicy(text).zoneLossFailoverAfterMs };
}

export class RedisClusterManager {
  public readonly redis: RedisNodes;

  constructor(public readonly layout: RedisShardLayout, public inventory: InventoryNode[], private readonly options: ManagerOptions = {}) {
    this.redis = new RedisNodes({ password: options.password });
  }

  public observe(): Promise<ObservedNode[]> {
    return this.redis.observe(this.inventory);
  }

  /** The cluster's state and the steps the manager would take now (changes nothing). */
  public async state(options: DecideOptions = {}): Promise<ClusterState> {
    const nodes = await this.observe();
    return summarize(this.layout, nodes, decide(this.layout, nodes, { ...this.options, ...options }));
  }

  /**
   * Runs steps until none is left and nothing is settling by itself, or the timeout; resolves to the final
   * state. `mode` as in `decide` ('reconcile', 'fix', 'rebalance', 'forget-lost-nodes').
   */
  public async converge(options: DecideOptions & { timeoutMs?: number } = {}): Promise<ClusterState> {
    const opts = { ...this.options, ...options };
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    for (;;) {
      const nodes = await this.observe();
      const decision = decide(this.layout, nodes, opts);
      if (decision.steps.length === 0 && (!decision.waiting || Date.now() > deadline)) {
        return summarize(this.layout, nodes, decision);
      }
      if (Date.now() > deadline) {
        this.options.log?.warn('redis: timed out with steps left', { steps: decision.steps });
        return summarize(this.layout, nodes, decision);
      }
      const c = new ClusterAnalysis(this.layout, nodes);
      const run = (step: Step) => {
        this.options.log?.info('redis step', { step, ...failoverTarget(step, nodes) });
        return execute(this.redis, step, c, this.options.password).catch((error) => this.options.log?.warn('redis step failed', { step, error }));
      };
      // a lost zone's masters fail over together: each shard's writes are refused until its replica takes over
      if (decision.steps.every((s) => s.kind === 'force-failover')) await Promise.all(decision.steps.map(run));
      else for (const step of decision.steps) await run(step);
      if (decision.steps.length === 0 || decision.steps.some((s) => s.kind !== 'migrate')) await sleep(100);
    }
  }

  /** Destroys every key and the cluster itself (FLUSHALL, CLUSTER RESET HARD on every node), then bootstraps again. */
  public async resetDestroyingData(): Promise<ClusterState> {
    const nodes = (await this.observe()).filter((n) => n.reachable);
    // Replicas refuse FLUSHALL (read-only): make every node a master first.
    await Promise.all(nodes.filter((n) => !isMaster(self(n))).map((n) => this.redis.call(n.address, 'CLUSTER', 'RESET', 'HARD')));
    await Promise.all(nodes.map((n) => this.redis.call(n.address, 'FLUSHALL')));
    await Promise.all(nodes.map((n) => this.redis.call(n.address, 'CLUSTER', 'RESET', 'HARD')));
    return this.converge();
  }

  /**
   * Restarts every node, replicas first (each waits until it is back and in sync), then each master after
   * failing it over to one of its replicas in sync, so the cluster keeps serving every slot throughout.
   * `restart` stops and starts the node (Kubernetes: deletes the pod) and resolves once it was restarted.
   */
  public async rollingRestart(restart: (node: InventoryNode) => Promise<void>): Promise<ClusterState> {
    const healthy = async (what: string) => {
      await until(async () => (await this.converge({ timeoutMs: 5_000 })).healthy, this.options.timeoutMs ?? 60_000, what, 200);
    };
    await healthy('a healthy cluster before the restart');
    const nodes = await this.observe();
    const replicas = nodes.filter((n) => n.reachable && !isMaster(self(n)));
    const masters = nodes.filter((n) => n.reachable && isMaster(self(n)));
    for (const n of replicas) {
      this.options.log?.info('redis restart replica', { node: n.name });
      await restart(n);
      await healthy(`${n.name} back in sync`);
    }
    for (const m of masters) {
      const now = await this.observe();
      const id = now.find((x) => x.name === m.name)?.id;
      const replica = now.find((x) => x.reachable && self(x)?.masterId === id && x.linkUp && x.zone !== m.zone)
        ?? now.find((x) => x.reachable && self(x)?.masterId === id && x.linkUp);
      if (replica) {
        this.options.log?.info('redis fail over before restart', { master: m.name, to: replica.name });
        await execute(this.redis, { kind: 'failover', on: replica.name, takeover: false }, new ClusterAnalysis(this.layout, now));
      }
      this.options.log?.info('redis restart former master', { node: m.name });
      await restart(m);
      await healthy(`${m.name} back, masters rebalanced`);
    }
    return this.state();
  }

  /**
   * `CLUSTER FAILOVER` on the replica `on` (it waits until the replica has every write of its master), then
   * the nodes as observed afterwards. Resolves once `on` is a master; throws when it did not become one.
   */
  public async failover(on: string): Promise<ObservedNode[]> {
    const nodes = await this.observe();
    const step: Step = { kind: 'failover', on, takeover: false };
    this.options.log?.info('redis step', { step, ...failoverTarget(step, nodes) });
    await execute(this.redis, step, new ClusterAnalysis(this.layout, nodes));
    return this.observe();
  }

  public close(): void {
    this.redis.close();
  }
}

/** For the log of a failover step: where its replica stood when it was asked (a failover that hangs pauses its shard's writes). */
function failoverTarget(step: Step, nodes: readonly ObservedNode[]): { target?: object } {
  if (step.kind !== 'failover' && step.kind !== 'force-failover') return {};
  const n = nodes.find((x) => x.name === step.on);
  return { target: { address: n?.address, reachable: n?.reachable, linkUp: n?.linkUp, replOffset: n?.replOffset } };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
