/**
 * The Python package, built and used for real: the wheel jsii-pacmak builds, installed by
 * setup.d/70-python.sh into .cache/python-venv beside cdk8s, constructs and cdk8s-plus-28 from PyPI,
 * synthesizes examples/python/web-3-zones/main.py into the same objects as the TypeScript example
 * (synthesized as `npm run synth` does), and bad input from Python gets the library's own error.
 */
import { execFileSync, spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { CACHE_DIR } from '../programs';
import { REPO_ROOT } from '../shared';

const VENV_PYTHON = path.join(CACHE_DIR, 'python-venv', 'bin', 'python');
const PY_EXAMPLE = path.join(REPO_ROOT, 'examples', 'python', 'web-3-zones');
const TS_EXAMPLE = path.join(REPO_ROOT, 'examples', 'web-3-zones');
const SETUP_HINT = 'run `npm run test:integration:setup` (setup.d/70-python.sh builds the wheel and the venv)';

/** The jsii runtime the Python package starts is the node on the PATH: on a supported Node.js it prints no banner. */
const SUPPORTED_NODE = ['22', '24'];

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-zones-python-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs the venv's Python; fails with a clear message when the venv or the wheel in it is missing. */
function python(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): SpawnSyncReturns<string> {
  if (!fs.existsSync(VENV_PYTHON)) throw new Error(`no Python venv at ${VENV_PYTHON}: ${SETUP_HINT}`);
  const node = execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  if (!SUPPORTED_NODE.includes(node.split('.')[0])) {
    throw new Error(`the node on the PATH is ${node}, past its end of life (jsii prints a banner on it): run on Node.js 22 or 24 (. scripts/use-node-24.sh)`);
  }
  const run = spawnSync(VENV_PYTHON, args, {
    cwd: opts.cwd ?? tmp, encoding: 'utf8', env: { ...process.env, ...opts.env },
  });
  if (run.error) throw new Error(`${VENV_PYTHON} could not be started: ${run.error.message}`);
  if (/No module named '(cdk8s_zones|cdk8s_plus_28|cdk8s|constructs)'/.test(run.stderr)) {
    throw new Error(`the venv ${path.dirname(path.dirname(VENV_PYTHON))} lacks a package: ${run.stderr.trim()}\n${SETUP_HINT}`);
  }
  return run;
}

/** Every manifest file in `dir` (name -> its objects, in order). */
function manifests(dir: string): Map<string, any[]> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  const objectsOf = (file: string) => yaml.parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  return new Map(files.map((f) => [f, objectsOf(f)]));
}

const id = (o: any) => `${o.kind} ${o.metadata?.name}`;

describe('the Python package (wheel from jsii-pacmak, cdk8s and cdk8s-plus-28 from PyPI)', () => {
  test('examples/python/web-3-zones synthesizes the same objects as the TypeScript example', () => {
    const pyOut = path.join(tmp, 'python');
    const run = python([path.join(PY_EXAMPLE, 'main.py')], { cwd: PY_EXAMPLE, env: { CDK8S_OUTDIR: pyOut } });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' }); // no banner, no warning

    // The TypeScript example, as scripts/synth-examples.ts runs it (`npm run synth`).
    const tsOut = path.join(tmp, 'typescript');
    execFileSync(process.execPath, [
      require.resolve('ts-node/dist/bin'), '--project', path.join(REPO_ROOT, 'examples', 'tsconfig.json'), '--transpile-only',
      path.join(TS_EXAMPLE, 'main.ts'),
    ], { cwd: TS_EXAMPLE, env: { ...process.env, CDK8S_OUTDIR: tsOut }, stdio: 'pipe' });

    const py = manifests(pyOut);
    const ts = manifests(tsOut);
    expect([...py.keys()]).toEqual([...ts.keys()]);
    for (const [file, tsObjects] of ts) {
      const pyObjects = py.get(file)!;
      expect(pyObjects.map(id)).toEqual(tsObjects.map(id));
      pyObjects.forEach((obj, i) => {
        expect({ file, object: id(obj), manifest: obj })
          .toEqual({ file, object: id(tsObjects[i]), manifest: tsObjects[i] });
      });
    }

    // What ZoneTopology + Zonal.spread put on the Deployment, called from Python.
    const pod = [...py.values()].flat().find((o) => o.kind === 'Deployment').spec.template.spec;
    expect(pod.topologySpreadConstraints[0]).toMatchObject({
      topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1, minDomains: 3, whenUnsatisfiable: 'DoNotSchedule',
    });
    expect(pod.topologySpreadConstraints[1]).toMatchObject({ topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' });
    expect(pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a', 'zone-b', 'zone-c'] }] },
    ]);
  });

  test('bad input from Python raises the library error naming the construct, the prop and the rule', () => {
    const run = python(['-c', `
import json
import cdk8s_plus_28 as kplus
from cdk8s import App, Chart
from cdk8s_zones import Zonal, ZoneTopology

def error(f):
    try:
        f()
    except Exception as e:
        return {"type": type(e).__name__, "message": str(e)}

chart = Chart(App(), "chart")
web = kplus.Deployment(chart, "web", containers=[kplus.ContainerProps(image="web")])
print(json.dumps([
    error(lambda: ZoneTopology(zones=[])),
    error(lambda: Zonal.spread(web, topology=ZoneTopology(zones=["a", "b", "c"]), min_domains=4)),
]))
`]);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const [noZones, tooManyDomains] = JSON.parse(run.stdout);
    expect(noZones).toEqual({ type: 'RuntimeError', message: 'ZoneTopology: zones=[] must be a list of at least one zone name' });
    expect(tooManyDomains.type).toBe('RuntimeError');
    expect(tooManyDomains.message).toContain("Zonal.spread(Deployment 'chart/web'): minDomains=4 exceeds the 3 zone(s) of the topology");
  });
});
