/**
 * docs/gallery.md: every example with what it shows and a picture of its zone map, where the zone check places
 * its pods in each zone (3 nodes per zone), and whether it survives losing any zone. `npm run gallery` writes it;
 * test/gallery.test.ts fails when it is not what the examples make.
 */
import * as fs from 'fs';
import * as path from 'path';
import { analyzeTraffic } from '../src/check/traffic/analyze-traffic';
import { ratio } from '../src/check/traffic/traffic-findings';
import { ServiceTrafficReport, TrafficFigure, TrafficReportData } from '../src/check/traffic/traffic-model';
import { readManifests } from '../src/check/workloads';
import { EXAMPLE_NAMES, synthesizeExample } from '../test/example-apps';
import { STANDARD_VARIANT } from '../test/example-variants';
import { ZoneInventory, ZoneReport } from 'cdk8s-zones';

const ROOT = path.resolve(__dirname, '..');
export const GALLERY = path.join(ROOT, 'docs', 'gallery.md');

/** What the example shows: the doc comment of its chart class, as one paragraph. */
function summaryOf(name: string): string {
  const source = fs.readFileSync(path.join(ROOT, 'examples', name, 'main.ts'), 'utf8');
  const comment = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export class \w+ extends Chart/.exec(source)?.[1] ?? '';
  return comment.split('\n').map((l) => l.replace(/^\s*\* ?/, '').trim()).filter((l) => l !== '').join(' ');
}

/** A zone's pods as a picture: one ● per pod sure to be there, one ○ per pod that may be (or — for none). */
function pods(guaranteed: number, worstCase: number): string {
  if (worstCase === 0) return '—';
  return '●'.repeat(guaranteed) + '○'.repeat(worstCase - guaranteed);
}

function section(name: string): string {
  const zones = STANDARD_VARIANT.zones;
  const objects = synthesizeExample(name, STANDARD_VARIANT);
  const inventory = ZoneInventory.equalNodes(zones, 3);
  const report = ZoneReport.analyze(objects, inventory);
  const rows = report.workloads.map((w) => {
    const perZone = zones.map((z) => pods(w.perZone[z].guaranteed, w.perZone[z].worstCase)).join(' | ');
    const survives = zones.every((z) => w.survives[z]) ? 'yes' : `no (${zones.filter((z) => !w.survives[z]).join(', ')})`;
    return `| ${w.kind} ${w.name} | ${perZone} | ${survives} |`;
  });
  return [
    `## ${name}`,
    '',
    `${summaryOf(name)} [examples/${name}/main.ts](../examples/${name}/main.ts)`,
    '',
    ...(rows.length === 0 ? ['No workload: it holds storage settings only.'] : [
      `| Workload | ${zones.join(' | ')} | Survives losing any zone |`,
      `| --- | ${zones.map(() => ':---:').join(' | ')} | --- |`,
      ...rows,
    ]),
    '',
    ...trafficLines(analyzeTraffic(readManifests(objects, inventory.topologyKey), inventory)),
  ].join('\n');
}

/**
 * The example's traffic (`cdk8s-zones traffic`, clients spread as the nodes are): per Service, its policy, its
 * endpoints per zone, the share of requests that may cross zones and the busiest endpoint, with what the report
 * finds; per zone-local Prometheus shard, the share of its scrapes that may cross.
 */
function trafficLines(data: TrafficReportData): string[] {
  const zones = data.zones;
  const share = (f: TrafficFigure | undefined) => (f === undefined ? '—' : `${Math.round(f.worst * 100)}%`);
  const found = (findings: readonly { rule: string }[]) => [...new Set(findings.map((f) => `\`${f.rule}\``))].join(', ') || '—';
  // a Service with endpoints and no share: its clients are outside the zones
  const crossing = (s: ServiceTrafficReport) => (s.crossZoneShare === undefined && s.workloads.length > 0
    ? `— (clients ${s.clients})` : share(s.crossZoneShare));
  const services = data.services.map((s) => `| ${s.name} | ${s.policy} | ` +
    `${zones.map((z) => pods(s.endpointsPerZone[z].guaranteed, s.endpointsPerZone[z].worstCase)).join(' | ')} | ` +
    `${crossing(s)} | ${s.maxLoadRatio === undefined ? '—' : ratio(s.maxLoadRatio)} | ${found(s.findings)} |`);
  const scrapes = data.scrapes.map((s) => `| ${s.kind} ${s.name} | scrapes ${s.zone} | ` +
    `${zones.map((z) => pods(s.replicasPerZone[z].guaranteed, s.replicasPerZone[z].worstCase)).join(' | ')} | ` +
    `${share(s.crossZoneShare)} | — | ${found(s.findings)} |`);
  if (services.length + scrapes.length === 0) return [];
  return [
    'Its traffic (`cdk8s-zones traffic`):',
    '',
    `| Service or shard | Policy | ${zones.join(' | ')} | Crosses zones (worst) | Busiest endpoint | Findings |`,
    `| --- | --- | ${zones.map(() => ':---:').join(' | ')} | ---: | ---: | --- |`,
    ...services,
    ...scrapes,
    '',
  ];
}

/** The whole page. */
export function renderGallery(): string {
  return [
    '# Gallery',
    '',
    'Every example of this repository, each a small app you can copy: its `main.ts` imports `cdk8s-zones` as an',
    'app does, and its `cdk8s.yaml` runs it as `cdk8s init` sets an app up (`app: npx ts-node main.ts`; change its',
    '`output`). Build one into your app with `new <Chart>(app, id, { zones: [...] })`, your zones in place of the',
    'default `zone-a`, `zone-b`, `zone-c`.',
    '',
    'The maps are the zone check\'s (3 nodes per zone): in each zone, ● a pod sure to be there and ○ one that may',
    'be (the spread allows either). Below each map, its traffic as `cdk8s-zones traffic` reports it (clients spread',
    'as the nodes are; [docs/traffic.md](traffic.md)): per Service, the pods behind it, the share of requests that',
    'may cross zones and the busiest endpoint over an even share, at worst; per zone-local Prometheus shard, the share',
    'of its scrapes that may cross. `npm run gallery` writes this page from the examples.',
    '',
    ...EXAMPLE_NAMES.map(section),
  ].join('\n');
}

if (require.main === module) {
  fs.writeFileSync(GALLERY, renderGallery());
  console.log(`wrote ${path.relative(ROOT, GALLERY)}`);
}
