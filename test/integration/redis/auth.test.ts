/**
 * The password path of a ZonalRedisCluster pod with real programs: the construct's own init-container
 * script (taken from the synthesized pod spec) run by real `sh` on a Secret file, and a real redis-server
 * started with the synthesized command line (its redis.conf plus `--include` of the auth.conf that script
 * wrote). The password has every awkward byte (AWKWARD_PASSWORD).
 */
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
// eslint-disable-next-line import/no-extraneous-dependencies
import Redis from 'ioredis';
import {
  AWKWARD_PASSWORD, exposesPassword, PASSWORD_SECRET, RedisProcesses, startRedisServer,
} from './redis-processes';
import { splitAddress } from '../../../controller/src/redis/executor';
import { REDIS_AUTH_CONF, REDIS_AUTH_PASSWORD } from '../../../src/contract/redis';
import { RedisShardLayout } from '../../../src/redis/layout';
import { freePort } from '../processes';
import { EmulatedPod, synthesizedRedisPod } from './pod-emulation';

const layout = RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1 });
const redis = new RedisProcesses(1000, AWKWARD_PASSWORD);
afterAll(() => redis.close());

/**
 * Commands pipelined on one fresh connection to node `name`, spoken in RESP by hand (no client library that
 * authenticates or retries on its own); their replies' first lines (`+PONG`, `-NOAUTH ...`, `-WRONGPASS ...`).
 */
async function raw(name: string, ...commands: string[][]): Promise<string[]> {
  const [host, port] = splitAddress(redis.inventory.find((n) => n.name === name)!.address);
  const socket = net.connect({ host, port });
  const resp = (args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  socket.write(commands.map(resp).join(''));
  let text = '';
  try {
    for await (const chunk of socket) {
      text += chunk;
      const lines = text.split('\r\n');
      if (lines.length > commands.length) return lines.slice(0, commands.length);
    }
    throw new Error(`connection to ${name} closed after ${JSON.stringify(text)}`);
  } finally {
    socket.destroy();
  }
}

/** One command over an authenticated ioredis connection to node `name`. */
async function authenticated(name: string, ...command: string[]): Promise<unknown> {
  const [host, port] = splitAddress(redis.inventory.find((n) => n.name === name)!.address);
  const client = new Redis({
    host,
    port,
    password: AWKWARD_PASSWORD,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  try {
    return await client.call(command[0], ...command.slice(1));
  } finally {
    client.disconnect();
  }
}

/**
 * The pod's init container run on its own on `secret` (bytes of the Secret key) in a fresh folder: its exit and
 * stderr.
 */
function initOn(secret: Buffer): { ok: boolean; error: string; conf?: string } {
  const { spec, configMaps } = synthesizedRedisPod(1000, PASSWORD_SECRET);
  const dir = fs.mkdtempSync(path.join(redis.root, 'init-'));
  const secrets = new Map([[PASSWORD_SECRET.name, { [PASSWORD_SECRET.key]: secret }]]);
  const pod = new EmulatedPod(spec, dir, { configMaps, secrets, podIP: '127.0.0.1' });
  try {
    pod.runInitContainers();
    return { ok: true, error: '', conf: fs.readFileSync(pod.local(spec.initContainers[0], REDIS_AUTH_CONF), 'utf8') };
  } catch (err: any) {
    return { ok: false, error: err.message };
  }
}

beforeAll(() => redis.addLayout(layout));

test('the init script writes every byte hex-escaped into requirepass and masterauth, and a copy for the probe', () => {
  const { conf } = initOn(Buffer.from('a"b\n'));
  expect(conf).toBe('requirepass "\\x61\\x22\\x62\\x0a"\nmasterauth "\\x61\\x22\\x62\\x0a"\n');
  const pod = redis.emulatedPod('a-0');
  const container = synthesizedRedisPod(1000, PASSWORD_SECRET).spec.containers[0];
  const copy = pod.local(container, REDIS_AUTH_PASSWORD);
  expect(fs.readFileSync(copy, 'utf8')).toBe(AWKWARD_PASSWORD);
  // umask 077: only the redis user reads them
  for (const file of [copy, pod.local(container, REDIS_AUTH_CONF)]) {
    expect((fs.statSync(file).mode % 0o1000).toString(8)).toBe('600');
  }
});

test.each([
  ['an empty password', Buffer.alloc(0), 'redis-auth: the password (Secret redis-password key password, mounted at /'],
  ['a NUL byte', Buffer.from('pass\0word'), 'redis-auth: the password (Secret redis-password key password) holds a NUL byte'],
])('the init script fails with a clear message: %s', (_, secret, message) => {
  const result = initOn(secret);
  expect(result.ok).toBe(false);
  expect(result.error).toContain(message);
});

test('redis-server takes the awkward password from the included file: clients without it are refused', async () => {
  expect(await raw('a-0', ['PING'])).toEqual([expect.stringMatching(/^-NOAUTH Authentication required/)]);
  const refused = () => [expect.stringMatching(/^-WRONGPASS/), expect.stringMatching(/^-NOAUTH/)];
  expect(await raw('a-0', ['AUTH', `${AWKWARD_PASSWORD}x`], ['PING'])).toEqual(refused());
  // the trailing newline is part of the password
  expect(await raw('a-0', ['AUTH', AWKWARD_PASSWORD.trimEnd()], ['PING'])).toEqual(refused());
  expect(await raw('a-0', ['AUTH', AWKWARD_PASSWORD], ['PING'])).toEqual(['+OK', '+PONG']);
  expect(await authenticated('a-0', 'CONFIG', 'GET', 'masterauth')).toEqual(['masterauth', AWKWARD_PASSWORD]);
  expect(await authenticated('a-0', 'CONFIG', 'GET', 'protected-mode')).toEqual(['protected-mode', 'yes']);
});

test('the password is on no redis-server\'s command line nor in its environment (/proc/PID/cmdline, /proc/PID/environ)', async () => {
  for (const n of redis.inventory) {
    const pid = redis.pid(n.name)!;
    expect(fs.readFileSync(`/proc/${pid}/cmdline`).toString().split('\0')).toEqual(expect.arrayContaining(['--include', '--cluster-announce-ip']));
    expect([n.name, exposesPassword(pid, AWKWARD_PASSWORD)]).toEqual([n.name, [false, false]]);
  }
  // The check sees a password where one is: a server given it as the old pods were (argv, env).
  const dir = fs.mkdtempSync(path.join(redis.root, 'exposed-'));
  const exposed = await startRedisServer('exposed', '127.0.0.1', await freePort(), dir, ['--requirepass', AWKWARD_PASSWORD], AWKWARD_PASSWORD,
    { REDIS_PASSWORD: AWKWARD_PASSWORD });
  try {
    expect(exposesPassword(exposed.pid!, AWKWARD_PASSWORD)).toEqual([true, true]);
  } finally {
    exposed.kill('SIGKILL');
  }
});

test('the synthesized readiness probe (real sh and redis-cli) passes with the password redis-server runs with, fails with another', () => {
  expect(redis.inventory.map((n) => [n.name, redis.ready(n.name)])).toEqual(redis.inventory.map((n) => [n.name, true]));
  const pod = redis.emulatedPod('a-0');
  const copy = pod.local(synthesizedRedisPod(1000, PASSWORD_SECRET).spec.containers[0], REDIS_AUTH_PASSWORD);
  fs.writeFileSync(copy, AWKWARD_PASSWORD.trimEnd()); // the trailing newline lost, as a plain $(cat) would lose it
  try {
    expect(redis.ready('a-0')).toBe(false);
  } finally {
    fs.writeFileSync(copy, AWKWARD_PASSWORD);
  }
  expect(redis.ready('a-0')).toBe(true);
});
