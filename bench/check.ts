/**
 * The zone check on 1,000 real workloads: the corpus of test/check/real-corpus (real charts and install YAML)
 * copied into distinct namespaces until it holds 1,000 workloads, as one multi-document file. Cases, side by side:
 * js-yaml parsing the file (the goal's baseline: the check at most 2 x that), the check as the CLI runs it (its
 * reader and the analysis), and kube-score scoring the same file (a real program; its process start included).
 */
import { execFileSync } from 'child_process';
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

/** The corpus's objects, copied into namespaces copy-<n>-... until the copies hold `WORKLOADS` workloads. */
function corpusText(): { text: string; workloads: number; objects: number } {
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
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  const ratio = timings[1].medianMs / timings[0].medianMs;
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
    ].join('\n'),
  };
}
