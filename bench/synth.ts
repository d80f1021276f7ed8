/**
 * Synthesis time of every example against a minimal one-Deployment cdk8s-plus chart, in one run, and
 * against its floor: the same documents as plain cdk8s ApiObjects, what cdk8s itself costs to
 * synthesize that output. Synthesis is measured in-process (App.synthYaml: validation + rendering),
 * without ts-node start-up.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, App, Chart, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { BenchCase, BenchSection, measureSideBySide, timingTable } from './harness';
import { Zonal } from '../src';

const examplesDir = path.resolve(__dirname, '..', 'examples');
const outdir = path.join(__dirname, 'out');

/** One cdk8s-plus Deployment and nothing of this library. */
function baselineApp(): App {
  const app = new App({ outdir });
  const chart = new Chart(app, 'baseline', { disableResourceNameHashes: true });
  new kplus.Deployment(chart, 'web', { replicas: 6, containers: [{ image: 'nginx', portNumber: 8080 }] });
  return app;
}

/** An App built by `build`, and the floor of its output. */
export interface FloorPair {
  readonly build: () => App;
  /** A fresh App holding each document `build` synthesizes as a plain `ApiObject`, in output order. */
  readonly floor: () => App;
  readonly documents: number;
}

/** YAML documents as comparable text: every mapping's keys sorted. */
function canonical(yaml: string): string {
  const sorted = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sorted);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]));
  };
  return JSON.stringify(loadAll(yaml, null, { schema: CORE_SCHEMA }).map(sorted));
}

/**
 * Synthesizes `build`'s App once and checks that its floor writes the same documents. Key order aside: cdk8s sorts an
 * ApiObject's keys before it applies its JSON patches, so a field the library adds by a patch (a pod's affinity) comes
 * last in the build and in order in the floor.
 */
export function floorOf(name: string, build: () => App): FloorPair {
  const docs = build().charts.flatMap((chart) => chart.toJson());
  const floor = () => {
    const app = new App({ outdir });
    const chart = new Chart(app, 'floor');
    docs.forEach((doc, i) => new ApiObject(chart, `doc-${i}`, doc));
    return app;
  };
  if (canonical(floor().synthYaml()) !== canonical(build().synthYaml())) {
    throw new Error(`${name}: its floor does not synthesize the same documents`);
  }
  return { build, floor, documents: docs.length };
}

/**
 * `build` with `Zonal.spread` replaced by what a user of cdk8s-plus alone would write: JSON patches that set the
 * pod spec fields it produces (topologySpreadConstraints, affinity, taken from one synthesis). The app's cost
 * without the library's spread; undefined when `build` never calls `Zonal.spread`. Checked to write the same
 * documents (key order aside, as `floorOf`).
 */
export function withoutZonalSpread(name: string, build: () => App): (() => App) | undefined {
  const rendered = new Map<string, Record<string, unknown>>();
  for (const doc of build().charts.flatMap((chart) => chart.toJson())) {
    rendered.set(`${doc.kind}/${doc.metadata?.name}`, doc.spec?.template?.spec ?? {});
  }
  let called = false;
  const byHand = () => {
    const spread = Zonal.spread;
    Zonal.spread = (workload) => {
      called = true;
      const obj = ApiObject.of(workload);
      const spec = rendered.get(`${obj.kind}/${obj.name}`) ?? {};
      for (const field of ['topologySpreadConstraints', 'affinity']) {
        if (spec[field] !== undefined) obj.addJsonPatch(JsonPatch.add(`/spec/template/spec/${field}`, spec[field]));
      }
    };
    try {
      return build();
    } finally {
      Zonal.spread = spread;
    }
  };
  const yaml = byHand().synthYaml();
  if (!called) return undefined;
  if (canonical(yaml) !== canonical(build().synthYaml())) {
    throw new Error(`${name}: without Zonal.spread it does not synthesize the same documents`);
  }
  return byHand;
}

/** One validation pass over every construct of the App, as cdk8s runs it (twice per `synthYaml`). */
function validateAll(app: App): void {
  for (const construct of app.node.findAll()) construct.node.validate();
}

export function synthBench(): BenchSection {
  const builds: { name: string; caseName: string; build: () => App }[] = [
    { name: 'baseline (no zones)', caseName: 'baseline: one cdk8s-plus Deployment, no zones', build: baselineApp },
    ...fs.readdirSync(examplesDir)
      .filter((name) => fs.existsSync(path.join(examplesDir, name, 'main.ts')))
      .sort()
      .map((name) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { build } = require(path.join(examplesDir, name, 'main')) as { build: (app: App) => void };
        return {
          name,
          caseName: `example ${name}`,
          build: () => {
            const app = new App({ outdir });
            build(app);
            return app;
          },
        };
      }),
  ];
  const entries = builds.map(({ name, caseName, build }) => {
    const pair = floorOf(name, build);
    const built = build();
    const byHand = withoutZonalSpread(name, build);
    return {
      name,
      documents: pair.documents,
      synth: { name: caseName, fn: () => pair.build().synthYaml() },
      floor: { name: `floor of ${name}`, fn: () => pair.floor().synthYaml() },
      validation: { name: `validation pass of ${name}`, fn: () => validateAll(built) },
      byHand: byHand && { name: `${name} with the spread written by hand`, fn: () => byHand().synthYaml() },
    };
  });
  const cases = entries.flatMap((e) => [e.synth, e.floor, e.validation, ...(e.byHand ? [e.byHand] : [])]);
  const timings = measureSideBySide(cases);
  const timingOf = (c: BenchCase) => timings.find((t) => t.name === c.name)!;
  const synthTimings = entries.map((e) => timingOf(e.synth));
  const floorRows = entries.map((e) => {
    const [synth, floor, validation] = [e.synth, e.floor, e.validation].map((c) => timingOf(c).medianMs);
    const ratioToFloor = (synth / floor).toFixed(2);
    return `| ${e.name} | ${e.documents} | ${synth.toFixed(2)} | ${floor.toFixed(2)} | ${ratioToFloor} | ${validation.toFixed(3)} |`;
  });
  const byHandRows = entries.filter((e) => e.byHand).map((e) => {
    const [synth, byHand] = [e.synth, e.byHand!].map((c) => timingOf(c).medianMs);
    return `| ${e.name} | ${synth.toFixed(2)} | ${byHand.toFixed(2)} | ${(synth / byHand).toFixed(2)} |`;
  });
  return {
    title: 'Synthesis time of the examples',
    body: [
      'Each case builds a fresh `App` and renders it to YAML (`App.synthYaml()`: validation, resolution, ' +
      'serialisation) in-process, after 3 warm-up runs, the cases interleaved.',
      '',
      timingTable(synthTimings, synthTimings[0]),
      '',
      'Against the floor: the same documents as plain cdk8s `ApiObject`s in one chart (each example synthesized once; ' +
      'its floor writes the same documents, key order aside), measured in the same run, interleaved with the cases above. ' +
      'The baseline uses cdk8s-plus and nothing of this library: its ratio is what cdk8s-plus itself costs over its ' +
      'floor. Synthesis is synchronous and single-threaded: on an idle core its time is its CPU time. The last column ' +
      'is one validation pass over the built App (every construct\'s validations), which cdk8s runs twice per ' +
      '`synthYaml` (once itself, once in `Chart.toJson`).',
      '',
      '| example | documents | median ms | floor median ms | ratio to floor | one validation pass ms |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...floorRows,
      '',
      'The examples built on cdk8s-plus workloads pay cdk8s-plus\'s own cost over the floor (the baseline\'s ratio) whatever ' +
      'this library does. Against the same app written with cdk8s-plus alone: `Zonal.spread` replaced by JSON patches that ' +
      'write the pod spec fields it produces (the same documents, key order aside), in the same run:',
      '',
      '| example | median ms | with the spread written by hand, median ms | ratio |',
      '| --- | ---: | ---: | ---: |',
      ...byHandRows,
    ].join('\n'),
  };
}
