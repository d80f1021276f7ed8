/**
 * The traffic report (`cdk8s-zones traffic`) against the zone check on the same input, side by side: the check's
 * corpus of 1,000 real workloads (bench/check.ts) with its Services, on 3 zones x 3 nodes. The goal: the report
 * within 1.5 x the check's own time (it runs the check, then routes every Service over the check's layouts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { corpusText } from './check';
import { BenchSection, measureSideBySide, timingTable } from './harness';
import { analyzeManifests } from '../src/check/analyze';
import { ZoneInventory } from '../src/check/inventory';
import { parseManifests } from '../src/check/manifest-text';
import { analyzeTraffic } from '../src/check/traffic/analyze-traffic';
import { readManifests } from '../src/check/workloads';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];

export function trafficBench(): BenchSection {
  const { text, workloads, objects } = corpusText();
  const inventory = new ZoneInventory({ zones: ZONES, nodesPerZone: 3 });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-traffic-')), 'corpus.yaml');
  const values = () => parseManifests(file, text).map((o) => o.value);
  const check = () => analyzeManifests(values(), inventory);
  const traffic = () => analyzeTraffic(readManifests(values(), inventory.topologyKey), inventory);
  const report = traffic();
  const timings = measureSideBySide([
    { name: 'zone check (reader + analysis)', fn: () => void check() },
    { name: 'traffic report (reader + check + routing)', fn: () => void traffic() },
  ], { warmup: 1, reps: 7 });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  const ratio = timings[1].medianMs / timings[0].medianMs;
  const warned = report.services.filter((s) => s.findings.some((f) => f.severity !== 'info')).length;
  return {
    title: 'Traffic report',
    body: [
      `The zone check's corpus (${workloads} real workloads, ${objects} objects, ${report.services.length} Services) on ` +
      `3 zones x 3 nodes; the report routes ${report.services.length} Services (${warned} with a warning) and ` +
      `${report.scrapes.length} Prometheus shards. The goal: the traffic report within 1.5 x the check on the same input.`,
      '',
      timingTable(timings, timings[0]),
      '',
      `Traffic report: ${ratio.toFixed(2)} x the zone check (goal <= 1.5 x).`,
    ].join('\n'),
  };
}
