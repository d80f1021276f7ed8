/**
 * Every `cdk8s-zones shift` and `cdk8s-zones drill` command of README.md and docs/ runs as written: against an
 * in-memory cluster (nodes in the zone the page names, a controller that answers), each exits 0. The Kubernetes
 * tier runs the same commands on a real cluster (zone-shift.test.ts, drill.test.ts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runCli } from './memory-api';
import { MemoryKubeApi } from '../memory-kube-api';

const ROOT = path.resolve(__dirname, '../..');
const SHIFTS = '/apis/cdk8s-zones.dev/v1alpha1/zoneshifts';

function docFiles(): string[] {
  const walk = (dir: string): string[] => fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => {
      if (e.isDirectory()) return walk(path.join(dir, e.name));
      return e.name.endsWith('.md') ? [path.join(dir, e.name)] : [];
    });
  return ['README.md', ...walk('docs')];
}

/** The command lines of the pages' sh blocks that run a live command, with the page they are on. */
function commands(): Array<[string, string[]]> {
  const found: Array<[string, string[]]> = [];
  for (const file of docFiles()) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const block of text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)) {
      for (const line of block[1].split('\n').filter((l) => /^cdk8s-zones (shift|drill)\b/.test(l))) {
        found.push([`${file}: ${line}`, [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]).slice(1)]);
      }
    }
  }
  return found;
}

/** Three zones (the pages' eu-west-1a among them), a controller that takes shifts up and undoes them. */
function cluster(): MemoryKubeApi {
  const api = new MemoryKubeApi();
  for (const zone of ['eu-west-1a', 'eu-west-1b', 'eu-west-1c']) {
    api.put('/api/v1/nodes', { kind: 'Node', metadata: { name: `node-${zone}`, labels: { 'topology.kubernetes.io/zone': zone } }, spec: {} });
  }
  api.onCall = () => {
    for (const [p, shift] of api.objects) {
      if (!p.startsWith(`${SHIFTS}/`)) continue;
      if (shift.metadata.deletionTimestamp) api.objects.delete(p);
      else shift.status ??= { phase: 'Active', message: 'ok', changed: [] };
    }
  };
  return api;
}

const found = commands();

test('the pages hold shift and drill commands (so the next test checks something)', () => {
  const lines = found.map(([where]) => where).join('\n');
  for (const command of ['shift start', 'shift status', 'shift cancel', 'drill --zone', 'drill --restore']) expect(lines).toContain(`cdk8s-zones ${command}`);
});

test.each(found)('%s', async (_where, argv) => {
  const api = cluster();
  if (argv[0] === 'shift' && argv[1] !== 'start') await runCli(api, ['shift', 'start', '--zone', 'eu-west-1a', '--expires-in', '1h']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-commands-'));
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const run = await runCli(api, argv);
    expect([run.code, run.stderr]).toEqual([0, expect.any(String)]);
  } finally {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
