/**
 * One graceful failover (`CLUSTER FAILOVER` on a replica) as Redis runs it, and when the manager may ask again.
 * The replica asks its master to pause writes, waits until it has every write of it (the master's replication
 * offset), then asks the masters for their votes; elected by a majority, it takes over. Redis gives all of that
 * CLUSTER_MF_TIMEOUT (5 s) and then aborts it: the replica stays one and its master takes writes again. A replica
 * starts another election only 2 x its failover timeout (2 x max(2 x cluster-node-timeout, 2 s)) after its last
 * one, and masters vote about a master's replicas once per 2 x cluster-node-timeout: asked sooner, it pauses its
 * master's writes for nothing and aborts again. So an aborted failover is retried only after that, a time the
 * replica's own cluster-node-timeout sets.
 */
// ioredis is the controller package's dependency: a ReplyError is Redis's answer, any other error no answer
import { ReplyError } from 'ioredis';

/** The time the manager reads and waits on: the real one, or a test's. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/** What a failover needs of the nodes: one command on one node (RedisNodes.call). */
export interface NodeCommands {
  call(address: string, ...args: (string | number)[]): Promise<unknown>;
}

/** Redis's CLUSTER_MF_TIMEOUT: a manual failover (FORCE included) not done by then is aborted. */
export const MANUAL_FAILOVER_TIMEOUT_MS = 5_000;
/**
 * How long after that the manager still looks for the promotion: Redis checks the deadline in its cron (every
 * 100 ms), and a ROLE asked this much later is answered after any promotion Redis still made.
 */
const PROMOTION_GRACE_MS = 1_000;
/** How long the manager looks for the promotion after asking: it has happened by then, or Redis has aborted it. */
export const FAILOVER_ATTEMPT_MS = MANUAL_FAILOVER_TIMEOUT_MS + PROMOTION_GRACE_MS;
/** Redis's default cluster-node-timeout, for a node that does not say its own. */
export const DEFAULT_NODE_TIMEOUT_MS = 15_000;
/** A failover Redis refused (it started nothing, paused nothing) is asked again after this long. */
export const REFUSED_RETRY_MS = 1_000;

/** How long a replica that started an election waits before it may start another (Redis's auth_retry_time). */
export function electionRetryMs(nodeTimeoutMs: number): number {
  return 2 * Math.max(2 * nodeTimeoutMs, 2_000);
}

/** From asking a replica to fail over until it may be asked again: its election started by the abort, at the latest. */
export function abortedRetryAfterMs(nodeTimeoutMs: number): number {
  return MANUAL_FAILOVER_TIMEOUT_MS + electionRetryMs(nodeTimeoutMs);
}

/** How long one graceful failover may take, one retry after an abort included: the bound for whoever waits for it. */
export function failoverBudgetMs(nodeTimeoutMs: number): number {
  return abortedRetryAfterMs(nodeTimeoutMs) + FAILOVER_ATTEMPT_MS;
}

/** The replica's failover messages (`CLUSTER INFO` counters): how far an attempt got. */
export interface FailoverMessages {
  /** MFSTART: it asked its master to pause writes and send its offset. */
  readonly pauseRequests: number;
  /** FAILOVER_AUTH_REQUEST (one per node asked): it started an election. */
  readonly voteRequests: number;
  /** FAILOVER_AUTH_ACK: masters voted for it. */
  readonly votes: number;
}

/** The failover counters of a `CLUSTER INFO` reply (absent ones are 0). */
export function failoverMessages(clusterInfo: string): FailoverMessages {
  const count = (name: string) => Number(new RegExp(`^cluster_stats_messages_${name}:(\\d+)`, 'm').exec(clusterInfo)?.[1] ?? 0);
  return { pauseRequests: count('mfstart_sent'), voteRequests: count('auth-req_sent'), votes: count('auth-ack_received') };
}

export type FailoverOutcome = 'promoted' | 'aborted' | 'refused';

export interface FailoverAttempt {
  readonly outcome: FailoverOutcome;
  /** When it was asked (the clock's ms). */
  readonly startedAt: number;
  /** From asking to the outcome (ms). */
  readonly ms: number;
  /** The replica's cluster-node-timeout, which sets when an aborted failover may be retried. */
  readonly nodeTimeoutMs: number;
  /** When it may be asked again (not promoted). */
  readonly retryAt?: number;
  /** What the replica sent and received meanwhile, when it said. */
  readonly messages?: FailoverMessages;
  /** Redis's refusal. */
  readonly error?: string;
}

/** The error of a failover to `on` that did not promote it: its outcome, how long it took and Redis's refusal. */
export function failoverFailure(on: string, attempt: FailoverAttempt): Error {
  return new Error(`failover to ${on} ${attempt.outcome} after ${attempt.ms} ms${attempt.error ? `: ${attempt.error}` : ''}`);
}

/**
 * Asks the replica at `address` to fail over (`TAKEOVER`: without election nor its master's agreement, only when
 * asked for) and waits for the outcome: promoted, aborted by Redis, or refused at once.
 */
export async function attemptFailover(
  redis: NodeCommands,
  address: string,
  takeover: boolean,
  clock: Clock = realClock,
): Promise<FailoverAttempt> {
  const nodeTimeoutMs = await nodeTimeoutOf(redis, address);
  const before = await messagesOf(redis, address);
  const startedAt = clock.now();
  const error = await redis.call(address, 'CLUSTER', 'FAILOVER', ...(takeover ? ['TAKEOVER'] : []))
    .then(() => undefined, (e: unknown) => e);
  if (error instanceof ReplyError) {
    const ms = clock.now() - startedAt;
    const retryAt = startedAt + ms + REFUSED_RETRY_MS;
    return { outcome: 'refused', startedAt, ms, nodeTimeoutMs, retryAt, error: (error as Error).message };
  }
  // no answer in time may still have started it: its outcome tells
  const promoted = await promotedBy(redis, address, startedAt + FAILOVER_ATTEMPT_MS, clock);
  const ms = clock.now() - startedAt;
  const after = await messagesOf(redis, address);
  const messages = before && after ? difference(after, before) : undefined;
  const retryAt = promoted ? undefined : startedAt + abortedRetryAfterMs(nodeTimeoutMs);
  return {
    outcome: promoted ? 'promoted' : 'aborted',
    startedAt,
    ms,
    nodeTimeoutMs,
    ...(retryAt ? { retryAt } : {}),
    ...(messages ? { messages } : {}),
  };
}

/** Whether the node calls itself a master by `deadline`; a ROLE asked after it is the last word. */
async function promotedBy(redis: NodeCommands, address: string, deadline: number, clock: Clock): Promise<boolean> {
  for (;;) {
    const asked = clock.now();
    const role = await redis.call(address, 'ROLE').then((r) => (r as string[])[0], () => undefined);
    if (role === 'master') return true;
    if (asked > deadline) return false;
    await clock.sleep(50);
  }
}

/** The node's own cluster-node-timeout (`CONFIG GET`), else Redis's default. */
async function nodeTimeoutOf(redis: NodeCommands, address: string): Promise<number> {
  const reply = await redis.call(address, 'CONFIG', 'GET', 'cluster-node-timeout').catch(() => undefined) as string[] | undefined;
  const ms = Number(reply?.[1]);
  return Number.isInteger(ms) && ms > 0 ? ms : DEFAULT_NODE_TIMEOUT_MS;
}

async function messagesOf(redis: NodeCommands, address: string): Promise<FailoverMessages | undefined> {
  return redis.call(address, 'CLUSTER', 'INFO').then((info) => failoverMessages(String(info)), () => undefined);
}

function difference(after: FailoverMessages, before: FailoverMessages): FailoverMessages {
  const { pauseRequests, voteRequests, votes } = before;
  return {
    pauseRequests: after.pauseRequests - pauseRequests,
    voteRequests: after.voteRequests - voteRequests,
    votes: after.votes - votes,
  };
}

/** The manager's memory of the failovers that did not happen: when each replica may be asked again. */
export class FailoverRetries {
  private readonly retryAt = new Map<string, number>();

  public record(on: string, attempt: FailoverAttempt): void {
    if (attempt.retryAt === undefined) this.retryAt.delete(on);
    else this.retryAt.set(on, attempt.retryAt);
  }

  /** When replica `on` may be asked again, if not yet at `now`. */
  public heldUntil(on: string, now: number): number | undefined {
    const at = this.retryAt.get(on);
    return at !== undefined && at > now ? at : undefined;
  }
}
