/**
 * Synthesis time of every example against a minimal one-Deployment cdk8s-plus chart, in one run.
 * Synthesis is measured in-process (App.synthYaml: validation + rendering), without ts-node start-up.
 */
import * as fs from 'fs';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { BenchCase, BenchSection, measureSideBySide, timingTable } from './harness';

const examplesDir = path.resolve(__dirname, '..', 'examples');

function baselineApp(): App {
  const app = new App({ outdir: path.join(__dirname, 'out') });
  const chart = new Chart(app, 'baseline', { disableResourceNameHashes: true });
  new kplus.Deployment(chart, 'web', { replicas: 6, containers: [{ image: 'nginx', portNumber: 8080 }] });
  return app;
}

export function synthBench(): BenchSection {
  const baseline: BenchCase = { name: 'baseline: one cdk8s-plus Deployment, no zones', fn: () => baselineApp().synthYaml() };
  const examples: BenchCase[] = fs.readdirSync(examplesDir)
    .filter((name) => fs.existsSync(path.join(examplesDir, name, 'main.ts')))
    .sort()
    .map((name) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { build } = require(path.join(examplesDir, name, 'main')) as { build: (app: App) => void };
      return {
        name: `example ${name}`,
        fn: () => {
          const app = new App({ outdir: path.join(__dirname, 'out') });
          build(app);
          app.synthYaml();
        },
      };
    });
  const timings = measureSideBySide([baseline, ...examples]);
  return {
    title: 'Synthesis time of the examples',
    body: 'Each case builds a fresh `App` and renders it to YAML (`App.synthYaml()`: validation, resolution, ' +
      'serialisation) in-process, after 3 warm-up runs, the cases interleaved.\n\n' + timingTable(timings, timings[0]),
  };
}
