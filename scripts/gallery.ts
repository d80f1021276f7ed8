/**
 * docs/gallery.md: every example with what it shows and a picture of its zone map, where the zone check places
 * its pods in each zone (3 nodes per zone), and whether it survives losing any zone. `npm run gallery` writes it;
 * test/gallery.test.ts fails when it is not what the examples make.
 */
import * as fs from 'fs';
import * as path from 'path';
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
  const report = ZoneReport.analyze(synthesizeExample(name, STANDARD_VARIANT), ZoneInventory.equalNodes(zones, 3));
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
  ].join('\n');
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
    'be (the spread allows either). `npm run gallery` writes this page from the examples.',
    '',
    ...EXAMPLE_NAMES.map(section),
  ].join('\n');
}

if (require.main === module) {
  fs.writeFileSync(GALLERY, renderGallery());
  console.log(`wrote ${path.relative(ROOT, GALLERY)}`);
}
