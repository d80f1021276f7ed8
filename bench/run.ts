/**
 * `npm run bench`: runs every benchmark section and writes bench/results.md.
 * Add a benchmark by writing bench/<topic>.ts that returns a BenchSection and listing it here.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkBench } from './check';
import { checkLiveBench } from './check-live';
import { controllerBench } from './controller';
import { drillBench } from './drill';
import { BenchSection } from './harness';
import { kubernetesBench } from './kubernetes';
import { prometheusBench } from './prometheus';
import { redisBench } from './redis';
import { rolloutBench } from './rollout';
import { synthBench } from './synth';
import { trafficBench } from './traffic';

const sections: { name: string; run: () => BenchSection | Promise<BenchSection> }[] = [
  { name: 'synth', run: synthBench },
  { name: 'prometheus', run: prometheusBench },
  { name: 'kubernetes', run: kubernetesBench },
  { name: 'controller', run: controllerBench },
  { name: 'rollout', run: rolloutBench },
  { name: 'redis', run: redisBench },
  { name: 'check', run: checkBench },
  { name: 'check', run: checkLiveBench },
  { name: 'traffic', run: trafficBench },
  { name: 'drill', run: drillBench },
];

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const results: BenchSection[] = [];
  for (const section of sections.filter((s) => only.length === 0 || only.includes(s.name))) {
    const started = Date.now();
    console.log(`bench ${section.name} ...`);
    results.push(await section.run());
    console.log(`bench ${section.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const header = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node.js ${process.version}, ` +
      `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB.`,
    'Absolute times on shared machines are noisy; compare the ratios, measured side by side in one run.',
    '`npm run bench <section>` reruns one section and keeps the others as they were.',
  ].join('\n');
  const file = path.join(__dirname, 'results.md');
  // Sections not run this time keep their last results (each is measured side by side within itself).
  const previous = fs.existsSync(file) ? sectionsOf(fs.readFileSync(file, 'utf-8')) : new Map<string, string>();
  for (const r of results) previous.set(r.title, r.body);
  const body = [...previous].map(([title, text]) => `## ${title}\n\n${text}`).join('\n\n');
  fs.writeFileSync(file, `${header}\n\n${body}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

/** The `## title` sections of a results file, in order, by title. */
function sectionsOf(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    found.set(part.slice(0, newline).trim(), part.slice(newline).trim());
  }
  return found;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
