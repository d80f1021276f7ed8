/**
 * What /readyz answers. A replica is ready once the API server has answered it and every watch cache it
 * runs holds its first list: the webhooks' caches on every replica, the reconcilers' on the leader (a
 * replica that becomes the leader is not ready while its reconcilers' caches load). It is not ready again
 * once it is stopping. Until then it says what it waits for, so `curl /readyz` explains a pod that stays
 * unready (an API server it cannot reach, a list RBAC refuses).
 */
import { KubeApi } from './kube/api';
import { delay } from './kube/informer';
import { Logger } from './log';

export class Readiness {
  private apiServer = false;
  private stopping = false;
  /** The caches that have not synced yet, one entry each (two may share a name). */
  private readonly syncing = new Set<{ readonly name: string }>();

  /** The API server has answered a request. */
  apiServerAnswered(): void {
    this.apiServer = true;
  }

  /** Not ready until `synced` resolves: the first list of `name`'s caches (a rejection keeps it waiting). */
  waitFor(name: string, synced: Promise<unknown>): void {
    const entry = { name };
    this.syncing.add(entry);
    synced.then(() => this.syncing.delete(entry), () => undefined);
  }

  /** The process is stopping: never ready again. */
  stop(): void {
    this.stopping = true;
  }

  /** Why the replica is not ready, or undefined when it is. */
  notReadyBecause(): string | undefined {
    if (this.stopping) return 'stopping';
    const waiting = [
      ...this.apiServer ? [] : ['the API server'],
      ...[...new Set([...this.syncing].map((e) => e.name))].sort().map((name) => `the caches of ${name}`),
    ];
    return waiting.length === 0 ? undefined : `waiting for ${waiting.join(', ')}`;
  }
}

/** The API server's answer to GET /version. */
interface ServerVersion {
  readonly gitVersion?: string;
}

/**
 * Asks the API server for its version until it answers (true) or `signal` aborts (false), retrying with
 * backoff: what tells a new user that the kubeconfig, the address, the CA or the token is wrong.
 */
export async function waitForApiServer(
  kube: Pick<KubeApi, 'get'>, signal: AbortSignal, log: Logger, backoff: { firstMs?: number; maxMs?: number } = {},
): Promise<boolean> {
  let waitMs = backoff.firstMs ?? 1_000;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const version = await kube.get('/version') as unknown as ServerVersion;
      log.info('the API server answered', { version: version?.gitVersion, failures });
      return true;
    } catch (err) {
      if (signal.aborted) break;
      failures++;
      log.warn('the API server does not answer, retrying: /readyz says not ready until it does', { error: err, failures, retryInMs: waitMs });
      await delay(waitMs, signal);
      waitMs = Math.min(waitMs * 2, backoff.maxMs ?? 30_000);
    }
  }
  return false;
}
