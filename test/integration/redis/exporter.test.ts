/**
 * The metrics exporter of a ZonalRedisCluster pod with real programs: the pod's own init container (real `sh`) writes
 * the exporter's password file from the Secret key, a real redis-server runs the pod's command line, and the real
 * exporter (Debian's prometheus-redis-exporter, the program the pinned image runs) runs the pod's exporter command
 * line. With the awkward password (every kind of byte a shell or JSON could trip on), it reaches its node
 * (`redis_up 1`); with another Secret than the server's, it is refused (`redis_up 0`); the password is on no command
 * line and in no environment. The pod's ports are the test's free ones (only the ports are mapped).
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AWKWARD_PASSWORD, exposesPassword, PASSWORD_SECRET, startRedisServer } from './redis-processes';
import { REDIS_PORT } from '../../../src/contract/redis';
import { EXPORTER_PORT } from '../../../src/redis/exporter';
import { freePort, stopWhenOrphaned } from '../processes';
import { programPath } from '../programs';
import { EmulatedPod, synthesizedRedisPod } from './pod-emulation';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-exporter-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(root, { recursive: true, force: true });
});

/** The synthesized pod's spec with its Redis and exporter ports replaced by the test's (nothing else changed). */
function withPorts(spec: any, redisPort: number, metricsPort: number): any {
  const port = (arg: string) => arg
    .replace(`redis://127.0.0.1:${REDIS_PORT}`, `redis://127.0.0.1:${redisPort}`)
    .replace(`:${EXPORTER_PORT}`, `127.0.0.1:${metricsPort}`);
  const init = spec.initContainers.map((c: any) => ({
    ...c, command: c.command.map((a: string) => (a === String(REDIS_PORT) ? String(redisPort) : a)),
  }));
  const containers = spec.containers.map((c: any) => ({ ...c, args: c.args?.map(port) }));
  return { ...spec, initContainers: init, containers };
}

/** The pod's exporter, started on `secret` (the Secret key's bytes) against a redis-server of `serverPassword`. */
async function exporterOn(
  name: string, secret: string, serverPassword: string,
): Promise<{ metrics: string; pid: number }> {
  const { spec, configMaps } = synthesizedRedisPod(1000, PASSWORD_SECRET);
  const [redisPort, metricsPort] = [await freePort(), await freePort()];
  const mapped = withPorts(spec, redisPort, metricsPort);
  const secretOf = (bytes: string) => new Map([[PASSWORD_SECRET.name, { [PASSWORD_SECRET.key]: Buffer.from(bytes) }]]);
  const serverPod = new EmulatedPod(mapped, path.join(root, `${name}-server`), {
    configMaps, secrets: secretOf(serverPassword), podIP: '127.0.0.1',
  });
  const serverArgs = serverPod.redisServerArgs();
  children.push(await startRedisServer(name, '127.0.0.1', redisPort, serverPod.volumeDir('data'), serverArgs, serverPassword,
    serverPod.env()));
  const secrets = secretOf(secret);
  const pod = new EmulatedPod(mapped, path.join(root, name), { configMaps, secrets, podIP: '127.0.0.1' });
  pod.runInitContainers();
  const container = mapped.containers.find((c: any) => c.name === 'exporter');
  const exporter = spawn(programPath('redis_exporter'), pod.argv(container), { stdio: 'ignore', env: pod.env(container) });
  stopWhenOrphaned(exporter.pid!);
  children.push(exporter);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text(), () => '');
    if (/^redis_up \d/m.test(metrics)) return { metrics, pid: exporter.pid! };
    if (Date.now() > deadline) throw new Error(`the exporter of ${name} served no redis_up within 15 s: ${metrics.slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('the exporter reaches its node with the password the init container wrote, awkward bytes and all', async () => {
  const { metrics, pid } = await exporterOn('awkward', AWKWARD_PASSWORD, AWKWARD_PASSWORD);
  expect(metrics).toMatch(/^redis_up 1$/m);
  expect(metrics).toMatch(/^redis_cluster_enabled 1$/m);
  expect(exposesPassword(pid, AWKWARD_PASSWORD)).toEqual([false, false]);
});

test('with another password than its node\'s, the exporter is refused: redis_up 0', async () => {
  const { metrics } = await exporterOn('refused', 'not-the-password', AWKWARD_PASSWORD);
  expect(metrics).toMatch(/^redis_up 0$/m);
});
