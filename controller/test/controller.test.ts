/**
 * The controller process (runController) against a fake API server that is down until the test brings it up:
 * what /readyz answers meanwhile, and the order of what it logs when it stops.
 */
import { MemoryKubeApi } from '../../test/memory-kube-api';
import { parseRun } from '../src/commands/run';
import { ControllerHost, runController } from '../src/controller';
import { KubeApi } from '../src/kube/api';
import { createLogger } from '../src/log';
import { Servers } from '../src/server';

/** An API server that refuses connections while `up` is false; up, it has no objects and its watches stay open. */
function fakeApiServer(): { kube: KubeApi; up: boolean } {
  const kube = new MemoryKubeApi();
  const server = { up: false, kube };
  kube.put('', { metadata: { name: 'version' }, gitVersion: 'v1.31.0' });
  kube.beforeCall = (call) => {
    const path = call.slice(call.indexOf(' ') + 1);
    if (!server.up) throw new Error(`GET https://127.0.0.1:6443${path}: connect ECONNREFUSED 127.0.0.1:6443`);
  };
  return server;
}

/** Starts `run` (the zone annotator, metrics on a free port) with the fake; returns what a test drives it with. */
async function start(kube: KubeApi) {
  const logs: any[] = [];
  const log = createLogger({ level: 'debug', write: (l) => { logs.push(JSON.parse(l)); } });
  let stop!: (signal: string) => void;
  let listening!: (servers: Servers) => void;
  const bound = new Promise<Servers>((resolve) => { listening = resolve; });
  const opts = parseRun(['--metrics-port', '0', '--metrics-bind-address', '127.0.0.1', '--identity', 'test'], { POD_NAMESPACE: 'zones' });
  const onSignals = (s: (signal: string) => void) => {
    stop = s;
    return () => undefined;
  };
  const done = runController(opts, log, { kube, onSignals, exitSoon: () => undefined, listening });
  const port = (await bound).metricsPort;
  const readyz = async () => { const r = await fetch(`http://127.0.0.1:${port}/readyz`); return { status: r.status, text: await r.text() }; };
  return {
    logs,
    readyz,
    done,
    stop: (signal: string) => stop(signal),
    messages: () => logs.map((l) => l.msg as string),
  };
}

async function eventually<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// `eventually` gives up after 10 s: jest's 5 s default must not cut it shorter on a loaded machine.
jest.setTimeout(20_000);

describe('runController', () => {
  test('/readyz is 503, saying what it waits for, while the API server does not answer; 200 once it answered and the caches synced', async () => {
    const api = fakeApiServer();
    const c = await start(api.kube);
    expect(await c.readyz()).toEqual({ status: 503, text: 'not ready: waiting for the API server, the caches of reconciler zone-annotator\n' });
    // the controller retries (and says so) but stays unready as long as the API server is down
    await eventually(async () => c.messages(), (m) => m.includes('watch failed, retrying'));
    expect(c.messages()).toContain('the API server does not answer, retrying: /readyz says not ready until it does');
    expect((await c.readyz()).status).toBe(503);
    api.up = true;
    expect(await eventually(c.readyz, (r) => r.status === 200)).toEqual({ status: 200, text: 'ok\n' });
    c.stop('SIGTERM');
    expect(await c.done).toBe(0);
    const m = c.messages();
    expect(m.indexOf('started')).toBeGreaterThan(-1);
    expect(m.indexOf('started')).toBeLessThan(m.indexOf('stopping'));
    expect(m[m.length - 1]).toBe('stopped');
  });

  test('SIGINT (Ctrl-C) stops it as SIGTERM does, but exits 130: interrupted', async () => {
    const api = fakeApiServer();
    api.up = true;
    const c = await start(api.kube);
    expect(await eventually(c.readyz, (r) => r.status === 200)).toEqual({ status: 200, text: 'ok\n' });
    c.stop('SIGINT');
    expect(await c.done).toBe(130);
    expect(c.logs.find((l) => l.msg === 'stopping')).toMatchObject({ why: 'SIGINT' });
    expect(c.messages().at(-1)).toBe('stopped');
  });

  test('stopped while the API server never answered: stopping, then stopped, and no `started` in between', async () => {
    const api = fakeApiServer();
    const c = await start(api.kube);
    await eventually(async () => c.messages(), (m) => m.includes('watch failed, retrying'));
    c.stop('SIGTERM');
    expect(await c.done).toBe(0);
    const m = c.messages();
    const after = m.slice(m.indexOf('stopping'));
    expect(after).toEqual(expect.arrayContaining(['stopping', 'stopped before its caches synced', 'stopped']));
    expect(m).not.toContain('started');
    expect(m[m.length - 1]).toBe('stopped');
    expect(c.logs.find((l) => l.msg === 'stopping')).toMatchObject({ why: 'SIGTERM' });
  });

  test('a start that fails (a webhook without TLS: bad flags) rejects, ends the watches the webhook started and exits 2', async () => {
    const api = fakeApiServer();
    let lists = 0;
    const list = api.kube.list.bind(api.kube);
    api.kube.list = ((path: string, o: any) => { lists++; return list(path, o); }) as any;
    const exits: number[] = [];
    const opts = parseRun(['--reconcilers', 'zone-disruption-budget', '--metrics-port', '0', '--identity', 'test'], { POD_NAMESPACE: 'zones' });
    const log = createLogger({ write: () => {} });
    const host: ControllerHost = {
      kube: api.kube,
      onSignals: () => () => undefined,
      exitSoon: (code) => exits.push(code),
    };
    await expect(runController(opts, log, host))
      .rejects.toThrow(/^the reconcilers serve admission webhooks \(\/validate\/pods-eviction\): give --tls-cert-file and --tls-key-file, or --tls-mode self-managed$/);
    expect(exits).toEqual([2]);
    // the webhook's informers tried to list once each (the API server is down: before the TLS check failed)
    // and, stopped, never retry
    const tried = lists;
    expect(tried).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(lists).toBe(tried);
  });
});
