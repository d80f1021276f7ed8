/**
 * The controller image (controller/Dockerfile), as test/integration/setup.d/60-controller-image.sh builds it
 * with buildah on stand-ins for its bases, run for real: its entrypoint, as its non-root user, with
 * `buildah run --isolation chroot`. In-cluster as a pod runs it: the service account's token, CA and
 * namespace mounted at /var/run/secrets/kubernetes.io/serviceaccount, KUBERNETES_SERVICE_HOST/PORT naming
 * the test API server, the RBAC `ZoneController` synthesizes and the Deployment's arguments. Its zone
 * annotator annotates a pod with its node's zone. And the image is small: the controller's own layers (one
 * bundled file) are at most 20 MB.
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { nodeFlagsOf } from './controller-process';
import { deleteNamespace, restrictedNamespace } from './examples';
import { KubeObject } from './kube-client';
import { RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { WaitAborted, waitFor } from './wait';
import { ZoneController } from '../../../src';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { SERVICE_ACCOUNT_DIR } from '../../../src/kubernetes/kube-connection';
import { freePort, stopWhenOrphaned } from '../processes';
import { REPO_ROOT } from '../shared';

const RECORD = path.join(REPO_ROOT, '.cache', 'controller-image', 'image.json');
const OWN_LAYERS_MAX_BYTES = 20e6;

interface ImageRecord {
  readonly image: string;
  readonly imageId: string;
  readonly base: string;
  readonly imageBytes: number;
  readonly ownBytes: number;
  readonly ownLayers: readonly { digest: string; bytes: number; createdBy: string }[];
}

const { client, info } = testCluster();
const ns = uniqueName('image');
const NAME = 'zones';
const dir = path.join(info.runDir, ns);
let record: ImageRecord;
let config: { Entrypoint: string[]; User: string };
let container: string | undefined;
let applied: KubeObject[] = [];
let running: ChildProcess | undefined;

function buildah(args: string[]): string {
  try {
    return execFileSync('buildah', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err: any) {
    throw new Error(`buildah ${args.join(' ')} failed (${err.code ?? err.status}): ${err.stderr ?? err.message}`);
  }
}

/** The pids of the processes below `pid`, from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch { /* gone meanwhile */ }
  }
  const below = (p: number): number[] => (children.get(p) ?? []).flatMap((c) => [c, ...below(c)]);
  return below(pid);
}

const cmdlineOf = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((w) => w !== '');
/** The real, effective, saved and file-system uids of `pid`. */
const uidsOf = (pid: number) => fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^Uid:\s+(.*)$/m)![1].split(/\s+/).map(Number);

beforeAll(async () => {
  if (!fs.existsSync(RECORD)) throw new Error(`${RECORD} is missing: build the image with npm run test:integration:setup`);
  record = JSON.parse(fs.readFileSync(RECORD, 'utf8'));
  const image = JSON.parse(buildah(['inspect', '--type', 'image', record.image]));
  if (image.FromImageID !== record.imageId) {
    throw new Error(`${record.image} is ${image.FromImageID}, but ${RECORD} measured ${record.imageId}: run npm run test:integration:setup`);
  }
  config = image.Docker.config;
  container = buildah(['from', '--pull=never', '--quiet', record.image]).trim();
  fs.mkdirSync(dir, { recursive: true });
  await restrictedNamespace(client, ns);
});

afterAll(async () => {
  running?.kill('SIGKILL');
  if (container) buildah(['rm', container]);
  const clusterScoped = applied.filter((x) => !x.metadata.namespace);
  for (const o of clusterScoped) await client.delete(o.apiVersion, o.kind, o.metadata.name);
  await deleteNamespace(client, ns);
  client.close();
});

test('the controller\'s own layers are one file of at most 20 MB on the distroless Node.js 24 base', () => {
  expect(record.base).toBe('gcr.io/distroless/nodejs24-debian12:nonroot');
  expect(record.ownLayers.map((l) => l.createdBy)).toEqual([expect.stringMatching(/COPY .* in \/usr\/local\/bin\/cdk8s-zones-controller\s*$/)]);
  expect(record.ownBytes).toBeLessThanOrEqual(OWN_LAYERS_MAX_BYTES);
  expect(record.ownBytes).toBeGreaterThan(500_000); // the bundle, not an empty file
  expect(config.User).toBe('65532:65532');
  expect(config.Entrypoint).toEqual(['cdk8s-zones-controller']);
});

test('--help as the image\'s non-root user', () => {
  const out = buildah(['run', '--isolation', 'chroot', '--user', config.User, container!, '--', ...config.Entrypoint, '--help']);
  expect(out).toContain('usage: cdk8s-zones-controller <command>');
  expect(out).toMatch(/^\s+wait-for-zone\s/m);
  const id = buildah(['run', '--isolation', 'chroot', '--user', config.User, container!, '--', '/nodejs/bin/node', '-p', 'process.getuid() + ":" + process.getgid()']);
  expect(id.trim()).toBe('65532:65532');
});

test('in-cluster, with ZoneController\'s RBAC and arguments, as uid 65532: a pod gets its node\'s zone', async () => {
  // What ZoneController synthesizes, but the Deployment: the image runs here instead of as its pod.
  const app = Testing.app();
  new ZoneController(new Chart(app, 'platform'), 'zones', { namespace: ns, name: NAME });
  const objects: KubeObject[] = Testing.synth(app.charts[0]);
  applied = objects.filter((o) => !['Deployment', 'Namespace'].includes(o.kind));
  for (const o of applied) await client.apply(o);
  const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
  expect(pod.securityContext.runAsUser).toBe(65532);
  const args: string[] = pod.containers[0].args;
  const metricsPort = await freePort();
  const runArgs = args.map((a, i) => (args[i - 1] === '--metrics-port' ? String(metricsPort) : a));

  // The service account's files as the kubelet projects them: token, ca.crt, namespace, readable by the pod's user.
  const token = await client.request<any>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${NAME}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
  const saDir = path.join(dir, 'serviceaccount');
  fs.mkdirSync(saDir, { recursive: true, mode: 0o755 });
  fs.writeFileSync(path.join(saDir, 'token'), token.body.status.token, { mode: 0o644 });
  fs.writeFileSync(path.join(saDir, 'ca.crt'), fs.readFileSync(info.ca), { mode: 0o644 });
  fs.writeFileSync(path.join(saDir, 'namespace'), ns, { mode: 0o644 });
  // Mounted where /var/run/secrets/... leads inside the image, as runc resolves a mount target in the root
  // file system: buildah 1.28 would follow the image's /var/run -> /run link on the host instead.
  const varRun = buildah(['run', '--isolation', 'chroot', container!, '--', '/nodejs/bin/node', '-p', 'fs.realpathSync("/var/run")']).trim();
  const mountAt = path.join(varRun, path.relative('/var/run', SERVICE_ACCOUNT_DIR));
  const server = new URL(info.server);
  const identity = uniqueName('image-controller');

  const logFile = fs.createWriteStream(path.join(info.logsDir, `controller-${identity}.log`));
  const child = spawn('buildah', ['run', '--isolation', 'chroot', '--user', config.User,
    '--volume', `${saDir}:${mountAt}:ro`,
    '--env', `KUBERNETES_SERVICE_HOST=${server.hostname}`, '--env', `KUBERNETES_SERVICE_PORT=${server.port}`,
    '--env', `POD_NAME=${identity}`, '--env', `POD_NAMESPACE=${ns}`, '--env', 'LOG_LEVEL=debug',
    container!, '--', ...config.Entrypoint, ...runArgs, '--bind-address', '127.0.0.1', '--metrics-bind-address', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  running = child;
  stopWhenOrphaned(child.pid!);
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { log += chunk; logFile.write(chunk); });
  child.stdout!.resume();
  let exit: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    exit = code;
    logFile.end();
    resolve(code);
  }));
  const alive = () => { if (exit !== undefined) throw new WaitAborted(`the image's controller exited with ${exit}; log:\n${log.slice(-4000)}`); };

  await waitFor(`the image's controller ready on :${metricsPort}`, async () => {
    alive();
    const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => undefined);
    return { done: res?.status === 200, state: `readyz ${res?.status}` };
  }, { timeoutMs: 60_000 });

  // The process buildah started: the bundle run by its `#!/nodejs/bin/node <flag>` line, as uid and gid 65532.
  // (below buildah-chroot-exec, whose arguments name it too: the deepest one)
  const controllerPid = descendants(child.pid!).filter((p) => cmdlineOf(p).includes('/usr/local/bin/cdk8s-zones-controller')).pop()!;
  expect(controllerPid).toBeDefined();
  stopWhenOrphaned(controllerPid);
  expect(cmdlineOf(controllerPid).slice(0, 4)).toEqual(['/nodejs/bin/node',
    ...nodeFlagsOf(path.join(REPO_ROOT, 'controller', 'src', 'main.ts')), '/usr/local/bin/cdk8s-zones-controller', 'run']);
  expect(uidsOf(controllerPid)).toEqual([65532, 65532, 65532, 65532]);

  const node = info.nodes[0];
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'opted-in', namespace: ns, labels: { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE } },
    spec: { ...RESTRICTED_PAUSE_POD, nodeName: node.name, tolerations: [{ operator: 'Exists' }] },
  });
  await waitFor('the pod annotated with its node\'s zone by the image\'s controller', async () => {
    alive();
    const p = await client.get<any>('v1', 'Pod', 'opted-in', ns);
    const value = p.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION];
    return { done: value === node.zone, state: `annotation ${value}` };
  });
  // it leads, with the Lease its arguments name, in its pod's namespace
  const lease = await client.get<any>('coordination.k8s.io/v1', 'Lease', NAME, ns);
  expect(lease.spec.holderIdentity).toBe(identity);

  // the kubelet stops a pod with SIGTERM: a clean exit, through buildah
  process.kill(controllerPid, 'SIGTERM');
  expect(await exited).toBe(0);
  running = undefined;
  expect(log).toContain('"msg":"stopped"');
});
