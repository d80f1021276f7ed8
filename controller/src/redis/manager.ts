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
import { attemptFailover, Clock, FailoverAttempt, failoverFailure, FailoverRetries, realClock } from './graceful-failover';
import { InventoryNode, isMaster, ObservedNode, self } from './model';
import { Step } from './steps';

export interface ManagerOptions extends DecideOptions {
  readonly password?: string;
  /** Give up after this long (default 60 s). */
  readonly timeoutMs?: number;
  readonly log?: Logger;
  /** The connections to the nodes (default: new ones with the password; a test's fake). */
  readonly nodes?: RedisNodes;
  /** The time it reads and waits on (default: the real one; a test's). */
  readonly clock?: Clock;
}

/**
 * The manager's options from the data of a cluster's layout ConfigMap: its failover policy (`failover.json`).
 * A ConfigMap synthesized before that key existed has none: failovers are then left to Redis.
 */
export function failoverOptions(
  layoutConfigMapData: { readonly [key: string]: string } | undefined,
): Pick<DecideOptions, 'zoneLossFailoverAfterMs'> {
  const text = layoutConfigMapData?.[FAILOVER_POLICY_KEY];
  return text === undefined ? {} : { zoneLossFailoverAfterMs: parseFailoverPolicy(text).zoneLossFailoverAfterMs };
}

export class RedisClusterManager {
  public readonly redis: RedisNodes;
  private readonly clock: Clock;
  /** Failovers that did not happen, across passes: a replica is asked again only once Redis would run it. */
  private readonly retries = new FailoverRetries();

  constructor(
    public readonly layout: RedisShardLayout,
    public inventory: InventoryNode[],
    private readonly options: ManagerOptions = {},
  ) {
    this.redis = options.nodes ?? new RedisNodes({ password: options.password });
    this.clock = options.clock ?? realClock;
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
   * state. `mode` as in `decide` ('reconcile', 'fix', 'rebalance', 'forget-lost-nodes'). A failover that did not
   * happen waits until Redis would run it again (`graceful-failover.ts`), within this pass or a later one.
   */
  public async converge(options: DecideOptions & { timeoutMs?: number } = {}): Promise<ClusterState> {
    const opts = { ...this.options, ...options };
    const deadline = this.clock.now() + (opts.timeoutMs ?? 60_000);
    const tried = new Set<string>();
    for (;;) {
      const nodes = await this.observe();
      const decision = decide(this.layout, nodes, opts);
      const now = this.clock.now();
      const due = decision.steps.filter((s) => this.heldUntil(s, now) === undefined);
      const heldPastDeadline = due.length === 0
        && !decision.waiting
        && decision.steps.every((s) => this.heldUntil(s, now)! > deadline);
      if (decision.steps.length === 0 && (!decision.waiting || now > deadline)) {
        return summarize(this.layout, nodes, decision);
      }
      if (now > deadline || heldPastDeadline) {
        this.passEnded(decision.steps, tried, now);
        return summarize(this.layout, nodes, decision);
      }
      const c = new ClusterAnalysis(this.layout, nodes);
      const run = (step: Step) => {
        tried.add(stepKey(step));
        return this.run(step, nodes, c);
      };
      // a lost zone's masters fail over together: each shard's writes are refused until its replica takes over
      if (due.every((s) => s.kind === 'force-failover')) await Promise.all(due.map(run));
      else for (const step of due) await run(step);
      if (due.length === 0 || due.some((s) => s.kind !== 'migrate')) await this.clock.sleep(100);
    }
  }

  /** When a step may run again: a failover Redis aborted or refused waits (undefined: now). */
  private heldUntil(step: Step, now: number): number | undefined {
    return step.kind === 'failover' ? this.retries.heldUntil(step.on, now) : undefined;
  }

  private async run(step: Step, nodes: ObservedNode[], c: ClusterAnalysis): Promise<void> {
    this.options.log?.info('redis step', { step, ...failoverTarget(step, nodes) });
    if (step.kind === 'failover') {
      await this.attemptFailover(step.on, step.takeover, c)
        .catch((error) => this.options.log?.warn('redis step failed', { step, error }));
      return;
    }
    const started = this.clock.now();
    const error = await execute(this.redis, step, c, this.options.password)
      .then(() => undefined, (e: unknown) => e ?? new Error('failed'));
    const ms = this.clock.now() - started;
    if (step.kind === 'force-failover') {
      if (error) this.options.log?.warn('redis failover', { on: step.on, force: true, outcome: 'aborted', ms, error });
      else this.options.log?.info('redis failover', { on: step.on, force: true, outcome: 'promoted', ms });
    } else if (error) {
      this.options.log?.warn('redis step failed', { step, error, ms });
    }
  }

  /** One graceful failover (TAKEOVER when asked for), its outcome logged and remembered. */
  private async attemptFailover(on: string, takeover: boolean, c: ClusterAnalysis): Promise<FailoverAttempt> {
    const address = c.nodes.find((n) => n.name === on)?.address;
    if (!address) throw new Error(`no node named ${on}`);
    const attempt = await attemptFailover(this.redis, address, takeover, this.clock);
    this.retries.record(on, attempt);
    const { startedAt, retryAt, ...told } = attempt;
    const retry = retryAt === undefined ? {} : { retryInMs: retryAt - this.clock.now() };
    if (attempt.outcome === 'promoted') this.options.log?.info('redis failover', { on, ...told });
    else this.options.log?.warn('redis failover', { on, ...told, ...retry });
    return attempt;
  }

  /**
   * A pass out of time with steps left: a warning when it tried them (they failed, or a failover waits for its
   * retry), else only that they came due too late in it (the next pass runs them).
   */
  private passEnded(left: Step[], tried: ReadonlySet<string>, now: number): void {
    const retries = left.flatMap((s) => {
      const at = this.heldUntil(s, now);
      return at === undefined ? [] : [{ step: s, retryInMs: at - now }];
    });
    const stuck = left.filter((s) => tried.has(stepKey(s)) || this.heldUntil(s, now) !== undefined);
    if (stuck.length > 0) this.options.log?.warn('redis: timed out with steps left', { steps: left, tried: stuck, retries });
    else this.options.log?.info('redis: pass ended before its next steps were tried', { steps: left });
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
      const converged = async () => (await this.converge({ timeoutMs: 5_000 })).healthy;
      await until(converged, this.options.timeoutMs ?? 60_000, what, 200);
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
        await this.failover(replica.name);
      }
      this.options.log?.info('redis restart former master', { node: m.name });
      await restart(m);
      await healthy(`${m.name} back, masters rebalanced`);
    }
    return this.state();
  }

  /**
   * `CLUSTER FAILOVER` on the replica `on` (it waits until the replica has every write of its master), then
   * the nodes as observed afterwards. Resolves once `on` is a master; throws when it did not become one, or at
   * once while a failover to it that did not happen waits for its retry.
   */
  public async failover(on: string): Promise<ObservedNode[]> {
    const heldUntil = this.retries.heldUntil(on, this.clock.now());
    if (heldUntil !== undefined) throw new Error(`failover to ${on} not retried before ${new Date(heldUntil).toISOString()}: Redis would not run it sooner`);
    const nodes = await this.observe();
    const step: Step = { kind: 'failover', on, takeover: false };
    this.options.log?.info('redis step', { step, ...failoverTarget(step, nodes) });
    const attempt = await this.attemptFailover(on, false, new ClusterAnalysis(this.layout, nodes));
    if (attempt.outcome !== 'promoted') throw failoverFailure(on, attempt);
    return this.observe();
  }

  public close(): void {
    this.redis.close();
  }
}

/**
 * For the log of a failover step: where its replica stood when it was asked, against its master's offset (a
 * graceful failover waits for the replica to catch up, with its shard's writes paused).
 */
function failoverTarget(step: Step, nodes: readonly ObservedNode[]): { target?: object } {
  if (step.kind !== 'failover' && step.kind !== 'force-failover') return {};
  const n = nodes.find((x) => x.name === step.on);
  const masterId = n && self(n)?.masterId;
  const master = nodes.find((x) => x.reachable && x.id !== undefined && x.id === masterId);
  const { address, reachable, linkUp, replOffset } = n ?? {};
  return { target: { address, reachable, linkUp, replOffset, masterReplOffset: master?.replOffset } };
}

/** A step's identity within a pass (steps are plain data). */
function stepKey(step: Step): string {
  return JSON.stringify(step);
}
