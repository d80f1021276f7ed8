import { createLogger } from '../src/log';
import { Readiness, waitForApiServer } from '../src/readiness';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('Readiness', () => {
  test('not ready until the API server answered and every cache waited for synced; says what it waits for', async () => {
    const readiness = new Readiness();
    let syncNodes!: () => void;
    let syncPods!: () => void;
    readiness.waitFor('reconciler zone-annotator', new Promise<void>((r) => { syncNodes = r; }));
    readiness.waitFor('reconciler zone-annotator', new Promise<void>((r) => { syncPods = r; }));
    readiness.waitFor('webhook zone-disruption-budget', Promise.resolve());
    expect(readiness.notReadyBecause()).toBe('waiting for the API server, the caches of reconciler zone-annotator, the caches of webhook zone-disruption-budget');
    await tick();
    readiness.apiServerAnswered();
    expect(readiness.notReadyBecause()).toBe('waiting for the caches of reconciler zone-annotator');
    syncNodes();
    await tick();
    // two waits of one name: the name stays until both synced
    expect(readiness.notReadyBecause()).toBe('waiting for the caches of reconciler zone-annotator');
    syncPods();
    await tick();
    expect(readiness.notReadyBecause()).toBeUndefined();
  });

  test('a cache whose sync fails keeps it waiting; stopping is never ready', async () => {
    const readiness = new Readiness();
    readiness.apiServerAnswered();
    readiness.waitFor('reconciler redis', Promise.reject(new Error('no')));
    await tick();
    expect(readiness.notReadyBecause()).toBe('waiting for the caches of reconciler redis');
    const stopped = new Readiness();
    stopped.apiServerAnswered();
    stopped.stop();
    expect(stopped.notReadyBecause()).toBe('stopping');
  });
});

describe('waitForApiServer', () => {
  test('asks GET /version until it answers, with backoff, warning each time; logs the version', async () => {
    const logs: any[] = [];
    const log = createLogger({ write: (l) => { logs.push(JSON.parse(l)); } });
    let calls = 0;
    const kube = {
      get: async (path: string) => {
        calls++;
        if (calls < 3) throw new Error(`GET https://10.0.0.1:6443${path}: connect ECONNREFUSED`);
        return { gitVersion: 'v1.31.2' } as any;
      },
    };
    expect(await waitForApiServer(kube, new AbortController().signal, log, { firstMs: 1, maxMs: 2 })).toBe(true);
    expect(calls).toBe(3);
    expect(logs.map((l) => [l.level, l.msg, l.retryInMs ?? l.version])).toEqual([
      ['warn', 'the API server does not answer, retrying: /readyz says not ready until it does', 1],
      ['warn', 'the API server does not answer, retrying: /readyz says not ready until it does', 2],
      ['info', 'the API server answered', 'v1.31.2'],
    ]);
    expect(logs[0].error).toBe('GET https://10.0.0.1:6443/version: connect ECONNREFUSED');
  });

  test('false once the signal aborts, however long it has been retrying', async () => {
    const stop = new AbortController();
    const kube = { get: async () => { throw new Error('unreachable'); } };
    const waiting = waitForApiServer(kube, stop.signal, createLogger({ write: () => {} }), { firstMs: 60_000 });
    await tick();
    stop.abort();
    expect(await waiting).toBe(false);
  });
});
