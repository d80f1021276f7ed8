/**
 * A resource kept current in memory: listed, then watched from the list's resourceVersion, so that every change the
 * API server makes is seen, in its order, however close together (the drill's observation: a pod evicted and
 * replaced within a second is a dip a poll would miss). A watch the API server ends is resumed from the last
 * version seen; one whose version is too old (410 Gone) is replaced by a new list.
 */
import { isStatus, KubeApi, KubeObject, listVersioned, WatchEvent } from './kube-api';

/** How long the API server keeps one watch open before the list resumes it (it may end it sooner). */
const WATCH_SECONDS = 300;

/** How a watched list waits before retrying a watch that failed (the CLI's clock). */
export interface WatchRetry {
  readonly sleep: (ms: number) => Promise<void>;
  /** @default 1000 */
  readonly retryMs?: number;
}

export class WatchedList<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  private resourceVersion: string | undefined;
  private following: Promise<void> = Promise.resolve();

  /** `onChange` is called after every change applied (each watch event, and once after a new list). */
  constructor(
    private readonly api: Pick<KubeApi, 'list' | 'watch'>,
    readonly path: string,
    private readonly onChange: () => void,
    private readonly retry: WatchRetry,
  ) {}

  /** Its objects now. */
  items(): T[] {
    return [...this.objects.values()];
  }

  /** Lists (what it rejects with, the first list's failure, stops the caller), then follows until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    await this.relist();
    this.following = this.follow(signal);
  }

  /** Resolves once the following has stopped (after `signal` aborted). */
  stopped(): Promise<void> {
    return this.following;
  }

  private async relist(): Promise<void> {
    const list = await listVersioned<T>(this.api, this.path);
    this.objects.clear();
    for (const item of list.items) this.objects.set(keyOf(item), item);
    this.resourceVersion = list.resourceVersion;
  }

  private async follow(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const options = { resourceVersion: this.resourceVersion, timeoutSeconds: WATCH_SECONDS };
        await this.api.watch<T>(this.path, options, (event) => this.apply(event), signal);
      } catch (e) {
        if (signal.aborted) return;
        if (isStatus(e, 410)) {
          await this.relistOrRetry();
        } else {
          await this.retry.sleep(this.retry.retryMs ?? 1000);
        }
      }
    }
  }

  /** A new list after a 410; a failed one is retried after the wait, the watch resuming from the old version. */
  private async relistOrRetry(): Promise<void> {
    try {
      await this.relist();
      this.onChange();
    } catch {
      await this.retry.sleep(this.retry.retryMs ?? 1000);
    }
  }

  private apply(event: WatchEvent<T>): void {
    const version = event.object?.metadata?.resourceVersion;
    if (event.type === 'BOOKMARK') {
      this.resourceVersion = version ?? this.resourceVersion;
      return;
    }
    if (event.type === 'DELETED') this.objects.delete(keyOf(event.object));
    else this.objects.set(keyOf(event.object), event.object);
    this.resourceVersion = version ?? this.resourceVersion;
    this.onChange();
  }
}

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}
