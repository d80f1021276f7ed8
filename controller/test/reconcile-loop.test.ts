import { createLogger } from '../src/log';
import { createMetrics } from '../src/metrics';
import { Readiness } from '../src/readiness';
import { ReconcileLoop, Watch } from '../src/reconcile-loop';

const log = createLogger({ write: () => {} });
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** A watch that syncs when the test says, and records when it was started. */
function fakeWatch(name: string, order: string[]): Watch & { sync(): void } {
  let sync!: () => void;
  const synced = new Promise<void>((r) => { sync = r; });
  return {
    synced,
    sync,
    run: (signal) => {
      order.push(`run ${name}`);
      return new Promise((r) => signal.addEventListener('abort', () => r(undefined)));
    },
  };
}

describe('ReconcileLoop', () => {
  test('caches first; primaries once every cache holds its first list; seeds and reconciles once the primaries hold theirs too', async () => {
    const order: string[] = [];
    const metrics = createMetrics({ defaultMetrics: false });
    const loop = new ReconcileLoop({ log, metrics }, { name: 'test', reconcile: async (key) => { order.push(`reconcile ${key}`); } });
    const [nodes, owners, pods] = [fakeWatch('nodes', order), fakeWatch('owners', order), fakeWatch('pods', order)];
    const stop = new AbortController();
    const running = loop.run(stop.signal, { caches: [nodes, owners], primaries: [pods], seed: () => ['seeded'] });
    loop.enqueue('early');
    nodes.sync();
    await tick();
    expect(order).toEqual(['run nodes', 'run owners']);
    owners.sync();
    await tick();
    // a key may read the primary's cache (a node's key reads the ZoneShifts): it waits for the primary's first list
    expect(order).toEqual(['run nodes', 'run owners', 'run pods']);
    pods.sync();
    await tick();
    expect(order).toEqual(['run nodes', 'run owners', 'run pods', 'reconcile early', 'reconcile seeded']);
    stop.abort();
    await running;
    const reconciles = await metrics.registry.getSingleMetric('cdk8s_zones_reconciles_total')!.get();
    expect(reconciles.values).toEqual([{ labels: { reconciler: 'test' }, value: 2 }]);
  });

  test('requeueAfter reconciles the key again without an event; a failure is counted and retried', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const runs: string[] = [];
    let failures = 1;
    const loop = new ReconcileLoop({ log, metrics }, {
      name: 'test',
      retryMs: 10,
      reconcile: async (key) => {
        runs.push(key);
        if (key === 'flaky' && failures-- > 0) throw new Error('conflict');
        return key === 'poll' && runs.filter((k) => k === 'poll').length < 3 ? { requeueAfter: 10 } : {};
      },
    });
    const stop = new AbortController();
    const running = loop.run(stop.signal, { seed: () => ['poll', 'flaky'] });
    await tick(80);
    stop.abort();
    await running;
    expect(runs.filter((k) => k === 'poll')).toHaveLength(3);
    expect(runs.filter((k) => k === 'flaky')).toHaveLength(2);
    const errors = await metrics.registry.getSingleMetric('cdk8s_zones_reconcile_errors_total')!.get();
    expect(errors.values).toEqual([{ labels: { reconciler: 'test' }, value: 1 }]);
  });

  test('stopping waits for the reconcile in progress and drops what is queued or scheduled', async () => {
    const done: string[] = [];
    let release!: () => void;
    const loop = new ReconcileLoop({ log, metrics: createMetrics({ defaultMetrics: false }) }, {
      name: 'test',
      concurrency: 1,
      reconcile: async (key) => {
        if (key === 'slow') await new Promise<void>((r) => { release = r; });
        done.push(key);
        return { requeueAfter: 5 };
      },
    });
    const stop = new AbortController();
    const running = loop.run(stop.signal, { seed: () => ['slow', 'queued'] });
    await tick();
    stop.abort();
    let stopped = false;
    void running.then(() => { stopped = true; });
    await tick();
    expect(stopped).toBe(false);
    release();
    await running;
    await tick(20);
    expect(done).toEqual(['slow']);
  });

  test('stopped before its caches synced (an API server that never answered): never says started, nor reconciles', async () => {
    const lines: any[] = [];
    const logged = createLogger({ write: (l) => { lines.push(JSON.parse(l)); } });
    const order: string[] = [];
    const loop = new ReconcileLoop({ log: logged, metrics: createMetrics({ defaultMetrics: false }) }, {
      name: 'test', reconcile: async (key) => { order.push(`reconcile ${key}`); },
    });
    const [nodes, pods] = [fakeWatch('nodes', order), fakeWatch('pods', order)];
    const stop = new AbortController();
    const running = loop.run(stop.signal, { caches: [nodes], primaries: [pods], seed: () => ['seeded'] });
    loop.enqueue('early');
    await tick();
    logged.info('stopping', { why: 'SIGTERM' }); // as the process logs it, then aborts
    stop.abort();
    await running;
    nodes.sync();
    await tick();
    expect(lines.map((l) => l.msg)).toEqual(['stopping', 'stopped before its caches synced']);
    expect(order).toEqual(['run nodes']);
  });

  test('its caches and primaries are waited for by /readyz until each holds its first list', async () => {
    const readiness = new Readiness();
    readiness.apiServerAnswered();
    const order: string[] = [];
    const loop = new ReconcileLoop(
      { log, metrics: createMetrics({ defaultMetrics: false }), readiness },
      { name: 'annotator', reconcile: async () => undefined },
    );
    const [nodes, pods] = [fakeWatch('nodes', order), fakeWatch('pods', order)];
    const stop = new AbortController();
    const running = loop.run(stop.signal, { caches: [nodes], primaries: [pods] });
    expect(readiness.notReadyBecause()).toBe('waiting for the caches of reconciler annotator');
    nodes.sync();
    await tick();
    expect(order).toEqual(['run nodes', 'run pods']);
    expect(readiness.notReadyBecause()).toBe('waiting for the caches of reconciler annotator');
    pods.sync();
    await tick();
    expect(readiness.notReadyBecause()).toBeUndefined();
    stop.abort();
    await running;
  });
});
