import { KubeApi, KubeApiError, KubeObject, ListOptions, ObjectList, WatchEvent, WatchOptions } from '../src/kube/api';
import { byController, byNamespace, ChangeType, Informer } from '../src/kube/informer';
import { createLogger } from '../src/log';
import { WorkQueue } from '../src/work-queue';

const log = createLogger({ write: () => {} });
const obj = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });

/** A scripted API server: each list answers the next page set; each watch plays the next script. */
class ScriptedApi implements Partial<KubeApi> {
  lists: Array<{ items: KubeObject[]; rv: string }> = [];
  watches: Array<(onEvent: (e: WatchEvent) => void, opts: WatchOptions) => Promise<void>> = [];
  readonly listCalls: ListOptions[] = [];
  readonly watchCalls: WatchOptions[] = [];
  async list<T extends KubeObject>(_path: string, opts: ListOptions = {}): Promise<ObjectList<T>> {
    this.listCalls.push(opts);
    const next = this.lists.shift();
    if (!next) throw new Error('no more lists scripted');
    return { items: next.items as T[], metadata: { resourceVersion: next.rv } };
  }
  async watch<T extends KubeObject>(
    _path: string,
    opts: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    this.watchCalls.push(opts);
    const script = this.watches.shift();
    if (!script) return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
    return script(onEvent as (e: WatchEvent) => void, opts);
  }
}

describe('Informer', () => {
  test('lists, watches from the list\'s version, resumes from the last seen version, relists on 410 Gone', async () => {
    const api = new ScriptedApi();
    api.lists = [{ items: [obj('a', '1'), obj('b', '2')], rv: '10' }, { items: [obj('a', '30'), obj('c', '31')], rv: '40' }];
    api.watches = [
      async (on) => {
        on({ type: 'ADDED', object: obj('d', '11') });
        on({ type: 'BOOKMARK', object: obj('', '15') });
      }, // server ends the watch
      async (on) => {
        on({ type: 'MODIFIED', object: obj('a', '16') });
        on({ type: 'DELETED', object: obj('b', '17') });
        throw new Error('connection reset');
      },
      async () => { throw new KubeApiError('WATCH', '/api/v1/pods', 410, 'Expired', 'too old resource version'); },
    ];
    const seen: Array<[ChangeType, string, string | undefined]> = [];
    const informer = new Informer<KubeObject>(api as unknown as KubeApi, {
      path: '/api/v1/pods',
      labelSelector: 'x=y',
      log,
      backoffMs: 1,
      resyncMs: 0,
      onChange: (type, o) => seen.push([type, o.metadata.name, o.metadata.resourceVersion]),
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await informer.synced;
    while (api.watchCalls.length < 4) await new Promise((r) => setTimeout(r, 2));
    stop.abort();
    await running;
    expect(api.watchCalls.map((w) => w.resourceVersion)).toEqual(['10', '15', '17', '40']);
    expect(api.listCalls).toHaveLength(2);
    expect(api.listCalls[0]).toMatchObject({ labelSelector: 'x=y', limit: 500 });
    expect(seen).toEqual([
      ['added', 'a', '1'], ['added', 'b', '2'],
      ['added', 'd', '11'],
      ['modified', 'a', '16'], ['deleted', 'b', '17'],
      // the relist: d vanished while no watch ran, a changed, c is new
      ['deleted', 'd', '11'], ['modified', 'a', '30'], ['added', 'c', '31'],
    ]);
    expect(informer.list().map((o) => o.metadata.name).sort()).toEqual(['a', 'c']);
    expect(informer.get('ns/a')!.metadata.resourceVersion).toBe('30');
  });

  test('an ERROR event with 410 relists', async () => {
    const api = new ScriptedApi();
    api.lists = [{ items: [obj('a', '1')], rv: '5' }, { items: [obj('a', '1')], rv: '50' }];
    api.watches = [async (on) => { on({ type: 'ERROR', object: { code: 410, reason: 'Expired', message: 'gone' } as any }); }];
    const informer = new Informer<KubeObject>(api as unknown as KubeApi, {
      path: '/p',
      log,
      resyncMs: 0,
      onChange: () => {},
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    while (api.watchCalls.length < 2) await new Promise((r) => setTimeout(r, 2));
    stop.abort();
    await running;
    expect(api.watchCalls.map((w) => w.resourceVersion)).toEqual(['5', '50']);
  });

  test('resync hands every cached object to the handler again', async () => {
    const api = new ScriptedApi();
    api.lists = [{ items: [obj('a', '1'), obj('b', '1')], rv: '5' }];
    const resynced: string[] = [];
    const informer = new Informer<KubeObject>(api as unknown as KubeApi, {
      path: '/p', log, resyncMs: 20, onChange: (type, o) => { if (type === 'resync') resynced.push(o.metadata.name); },
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    while (resynced.length < 4) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    await running;
    expect(resynced.slice(0, 4).sort()).toEqual(['a', 'a', 'b', 'b']);
  });
});

describe('Informer transforms and indexes', () => {
  const pod = (ns: string, name: string, rv: string, owner?: string): KubeObject => ({
    metadata: {
      name,
      namespace: ns,
      resourceVersion: rv,
      managedFields: [{ big: true }],
      ownerReferences: owner ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: owner, controller: true }] : undefined,
    } as any,
    spec: { containers: [{ name: 'c', image: 'x' }] },
  });

  test('the cache and the handler hold what the transform keeps; indexes follow adds, moves and deletes', async () => {
    const api = new ScriptedApi();
    api.lists = [{ items: [pod('a', 'p1', '1', 'rs1'), pod('a', 'p2', '1', 'rs1'), pod('b', 'p3', '1', 'rs2')], rv: '5' }];
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    api.watches = [async (on) => {
      on({ type: 'MODIFIED', object: pod('a', 'p2', '6', 'rs2') }); // another owner
      on({ type: 'DELETED', object: pod('a', 'p1', '7', 'rs1') });
      on({ type: 'ADDED', object: pod('b', 'p4', '8') });
      release();
    }];
    const handled: KubeObject[] = [];
    const informer = new Informer(api as unknown as KubeApi, {
      path: '/api/v1/pods',
      log,
      resyncMs: 0,
      transform: ({ metadata: { name, namespace, resourceVersion, ownerReferences } }) =>
        ({ metadata: { name, namespace, resourceVersion, ownerReferences } }),
      indexes: { namespace: byNamespace, controller: byController },
      onChange: (_t, o) => handled.push(o),
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await informer.synced;
    expect(informer.byIndex('controller', 'rs1').map((p) => p.metadata.name).sort()).toEqual(['p1', 'p2']);
    await released;
    stop.abort();
    await running;
    const names = (objs: KubeObject[]) => objs.map((p) => p.metadata.name).sort();
    expect(names(informer.byIndex('controller', 'rs1'))).toEqual([]);
    expect(names(informer.byIndex('controller', 'rs2'))).toEqual(['p2', 'p3']);
    expect(names(informer.byIndex('namespace', 'a'))).toEqual(['p2']);
    expect(names(informer.byIndex('namespace', 'b'))).toEqual(['p3', 'p4']);
    expect(informer.get('a/p2')).toEqual({
      metadata: {
        name: 'p2',
        namespace: 'a',
        resourceVersion: '6',
        ownerReferences: pod('a', 'p2', '6', 'rs2').metadata.ownerReferences,
      },
    });
    expect(handled.every((o) => !('spec' in o) && !('managedFields' in o.metadata))).toBe(true);
    expect(handled).toHaveLength(6);
  });
});

describe('WorkQueue', () => {
  test('deduplicates queued keys, never runs a key twice at once, reruns a key queued during its work', async () => {
    const runs: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const release: Array<() => void> = [];
    const q = new WorkQueue(async (key) => {
      runs.push(key);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise<void>((r) => release.push(r));
      inFlight--;
    }, { concurrency: 2 });
    q.add('a'); q.add('a'); q.add('b'); q.add('c');
    expect(runs).toEqual(['a', 'b']);
    q.add('a'); // while a is in work
    while (release.length) { release.shift()!(); await new Promise((r) => setTimeout(r, 1)); }
    await q.idle();
    expect(runs.sort()).toEqual(['a', 'a', 'b', 'c']);
    expect(maxInFlight).toBe(2);
  });

  test('retries a failing key with growing backoff and reports each failure', async () => {
    const failures: number[] = [];
    let attempts = 0;
    const times: number[] = [];
    const q = new WorkQueue(async () => {
      times.push(Date.now());
      if (++attempts < 4) throw new Error('conflict');
    }, { retryMs: 10, onError: (_k, _e, n) => failures.push(n) });
    q.add('k');
    while (attempts < 4) await new Promise((r) => setTimeout(r, 5));
    await q.idle();
    expect(failures).toEqual([1, 2, 3]);
    // waits of 10, 20, 40 ms (timers may fire a little late, never early)
    expect(times[3] - times[0]).toBeGreaterThanOrEqual(69);
    q.stop();
  });

  test('addAfter queues a key later; a second call replaces the first; stop cancels it', async () => {
    const runs: Array<[string, number]> = [];
    const start = Date.now();
    const q = new WorkQueue(async (key) => { runs.push([key, Date.now() - start]); });
    q.addAfter('a', 40);
    q.addAfter('a', 20);
    q.addAfter('b', 10);
    q.addAfter('c', 10);
    await new Promise((r) => setTimeout(r, 60));
    expect(runs.map(([k]) => k)).toEqual(['b', 'c', 'a']);
    expect(runs[2][1]).toBeGreaterThanOrEqual(19);
    q.addAfter('d', 10);
    q.stop();
    await new Promise((r) => setTimeout(r, 30));
    expect(runs).toHaveLength(3);
  });
});
