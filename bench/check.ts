/**
 * The zone check on 1,000 real workloads: the corpus of test/check/real-corpus (real charts and install YAML)
 * copied into distinct namespaces until it holds 1,000 workloads, as one multi-document file. Cases, side by side:
 * js-yaml parsing the file (the goal's baseline: the check at most 2 x that), the check as the CLI runs it (its
 * reader and the analysis), and kube-score scoring the same file (a real program; its process start included).
 * Then whole processes, as a user times them, side by side: `node` parsing the file with js-yaml (the baseline:
 * `cdk8s-zones check` within 1.5 x that), the package's bin checking it, and the bin's `--version` (its load).
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CORE_SCHEMA, dump, loadAll } from 'js-yaml';
import { BenchSection, measureSideBySide, timingTable } from './harness';
import { analyzeManifests } from '../src/check/analyze';
import { ZoneInventory } from '../src/check/inventory';
import { parseManifests } from '../src/check/manifest-text';
import { realCorpusFiles } from '../test/check/real-corpus-files';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const WORKLOADS = 1000;
const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'Pod']);
const KUBE_SCORE = path.join(__dirname, '..', '.cache', 'bin', 'kube-score');
const ROOT = path.join(__dirname, '..');

/** The corpus's objects, copied into namespaces copy-<n>-... until the copies hold `WORKLOADS` workloads. */
export function corpusText(): { text: string; workloads: number; objects: number } {
  const files = realCorpusFiles();
  const objects = files.flatMap((f) => {
    const docs: any[] = [];
    loadAll(fs.readFileSync(f, 'utf8'), (d) => docs.push(d), { schema: CORE_SCHEMA });
    return docs.filter((d) => d && typeof d === 'object');
  });
  const perCopy = objects.filter((o) => WORKLOAD_KINDS.has(o.kind)).length;
  const copies = Math.ceil(WORKLOADS / perCopy);
  const out: any[] = [];
  let workloads = 0;
  for (let c = 0; c < copies; c++) {
    for (const o of objects) {
      if (WORKLOAD_KINDS.has(o.kind)) {
        if (workloads === WORKLOADS) continue;
        workloads++;
      }
      out.push({ ...o, metadata: { ...o.metadata, namespace: `copy-${c}-${o.metadata?.namespace ?? 'default'}` } });
    }
  }
  return { text: out.map((o) => dump(o, { noRefs: true, lineWidth: -1 })).join('---\n'), workloads, objects: out.length };
}

export function checkBench(): BenchSection {
  const { text, workloads, objects } = corpusText();
  const inventory = new ZoneInventory({ zones: ZONES, nodesPerZone: 3 });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-check-')), 'corpus.yaml');
  fs.writeFileSync(file, text);
  const parse = () => {
    const docs: unknown[] = [];
    loadAll(text, (d) => docs.push(d), { schema: CORE_SCHEMA });
    return docs;
  };
  const check = () => analyzeManifests(parseManifests(file, text).map((o) => o.value), inventory);
  const reported = check().workloads.length;
  if (!fs.existsSync(KUBE_SCORE)) throw new Error(`kube-score is not installed at ${KUBE_SCORE}: run \`npm run test:integration:setup\``);
  const kubeScore = () => {
    try {
      execFileSync(KUBE_SCORE, ['score', '--output-format', 'ci', file], { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 256 * 1024 * 1024 });
    } catch (e: any) {
      if (e.status === undefined || e.status > 1) throw e; // 1: it found problems, as it does on real charts
    }
  };
  const timings = measureSideBySide([
    { name: 'js-yaml parse (baseline)', fn: () => void parse() },
    { name: 'zone check (the CLI\'s reader + analysis)', fn: () => void check() },
    { name: 'kube-score score (same file)', fn: kubeScore },
  ], { warmup: 1, reps: 7 });
  const processes = processTimings(file);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  const ratio = timings[1].medianMs / timings[0].medianMs;
  const processRatio = processes[1].medianMs / processes[0].medianMs;
  return {
    title: 'Zone check',
    body: [
      `${workloads} real workloads (${objects} objects, ${(text.length / 1024).toFixed(0)} KiB of YAML: test/check/real-corpus copied into ` +
      `distinct namespaces) checked on 3 zones x 3 nodes, the CLI's default inventory; the check reports ${reported} workloads and zone groups. ` +
      'The goal: the check at most 2 x js-yaml\'s parse of the same file.',
      '',
      timingTable(timings, timings[0]),
      '',
      `Zone check: ${ratio.toFixed(2)} x the js-yaml parse (goal <= 2 x); kube-score: ${(timings[2].medianMs / timings[0].medianMs).toFixed(2)} x.`,
      '',
      'Whole processes, as a user times them (start to exit, output discarded), side by side: `node` reading the same ' +
      'file and parsing it with js-yaml (the baseline), the package\'s bin (lib/cli/cdk8s-zones.js, the CLI bundled ' +
      'into one file by scripts/bundle-cli.js, rebuilt first) checking it on the same zones, and the bin\'s `--version` ' +
      '(starting it: loading its one file). The goal: the check process within 1.5 x the parse process.',
      '',
      timingTable(processes, processes[0]),
      '',
      `cdk8s-zones check: ${processRatio.toFixed(2)} x the js-yaml process (goal <= 1.5 x); ` +
      `cdk8s-zones --version: ${processes[2].medianMs.toFixed(0)} ms (${(processes[2].medianMs / processes[0].medianMs).toFixed(2)} x).`,
    ].join('\n'),
  };
}

/** Whole processes on `file`: node + js-yaml parsing it, the bin checking it, the bin's --version. */
function processTimings(file: string) {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle-cli.js')], { stdio: 'ignore' });
  const bin = path.join(ROOT, JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).bin['cdk8s-zones']);
  const parseScript = "const y = require('js-yaml'); const docs = []; " +
    "y.loadAll(require('fs').readFileSync(process.argv[1], 'utf8'), (d) => docs.push(d), { schema: y.CORE_SCHEMA });";
  const run = (args: string[], codes: number[]) => () => {
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (r.status === null || !codes.includes(r.status)) throw new Error(`node ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  };
  return measureSideBySide([
    { name: 'node -e: js-yaml loadAll of the file (baseline)', fn: run(['-e', parseScript, file], [0]) },
    // 1: the check found workloads that do not survive losing a zone, as it does in real charts
    { name: `cdk8s-zones check <file> --zones ${ZONES.join(',')}`, fn: run([bin, 'check', file, '--zones', ZONES.join(',')], [0, 1]) },
    { name: 'cdk8s-zones --version', fn: run([bin, '--version'], [0]) },
  ], { warmup: 1, reps: 11 });
}
