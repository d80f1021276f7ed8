/**
 * TopologyShardedPrometheus: where 10,000 synthetic targets are scraped from (cross-zone fraction) and
 * how evenly the shards share them (max / mean targets per shard), for this library's shard plan,
 * prometheus-operator's topology formula and classic address sharding, on the same targets; the
 * synthesis time for 1, 64 and 1,000 shards; and the standalone output's cost per shard against its floor
 * (the same documents as plain ApiObjects). Target-to-shard assignment uses the TypeScript hashmod,
 * which test/integration/prometheus proves equal to Prometheus's own.
 */
import { App, Chart } from 'cdk8s';
import { BenchCase, BenchSection, measureSideBySide, Timing, timingTable } from './harness';
import { floorOf } from './synth';
import { Hashmod, PrometheusOutput, ShardPlan, TopologyShardedPrometheus, ZoneTopology } from '../src';
import { operatorTopologyShards } from '../src/prometheus/operator-formula';

const TARGETS = 10_000;

/** Repetitions of each synthesis case (the 1,000-shard ones take a second or two each). */
const SYNTH_REPS = 11;

/** One target in a hundred has no known zone (no zone label, or a zone outside the topology). */
const UNZONED_EVERY = 100;

interface Target {
  readonly address: string;
  readonly zone?: string;
}

/** Targets with pod-like addresses, dealt over the zones with the given weights (deterministic). */
function targets(zones: string[], weights: number[]): Target[] {
  const total = weights.reduce((a, b) => a + b, 0);
  return Array.from({ length: TARGETS }, (_, i) => {
    let slot = i % total;
    const zone = i % UNZONED_EVERY === UNZONED_EVERY - 1 ? undefined : zones[weights.findIndex((w) => (slot -= w) < 0)];
    return { address: `10.${Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}:${8080 + (i % 3)}`, zone };
  });
}

interface Outcome {
  /** The fraction of the targets with a known zone that a shard in another zone scrapes. */
  readonly crossZone: number;
  readonly perShard: number[];
  readonly unscraped: number;
}

/** Each strategy maps a target to (shard index, shard zone), or undefined when no shard scrapes it. */
type Strategy = (t: Target) => { shard: number; zone: string } | undefined;

function evaluate(shards: number, all: Target[], strategy: Strategy): Outcome {
  const perShard = new Array(shards).fill(0);
  let crossZone = 0;
  let unscraped = 0;
  for (const t of all) {
    const hit = strategy(t);
    if (!hit) {
      unscraped++;
      continue;
    }
    perShard[hit.shard]++;
    if (t.zone !== undefined && hit.zone !== t.zone) crossZone++;
  }
  return { crossZone: crossZone / all.filter((t) => t.zone !== undefined).length, perShard, unscraped };
}

function ours(zones: string[], shards: number, shardsPerZone?: { [zone: string]: number }): Strategy {
  const plan = ShardPlan.plan({ topology: new ZoneTopology({ zones }), shards, shardsPerZone });
  return (t) => {
    const zone = t.zone ?? zones[0]; // the first zone's shards take the targets without a known zone
    const s = plan.shardFor(zone, Hashmod.bucket(t.address, plan.shardsInZone(zone).length));
    return { shard: s.index, zone: s.zone };
  };
}

function operator(zones: string[], shards: number): Strategy {
  const formula = operatorTopologyShards(zones, shards);
  return (t) => {
    const s = formula.find((f) => f.zone === t.zone && f.inZoneIndex === Hashmod.bucket(t.address, f.modulus));
    return s && { shard: s.index, zone: s.zone };
  };
}

/** Classic sharding, its pods spread over the zones (shard i in zone i % Z). */
function address(zones: string[], shards: number): Strategy {
  return (t) => {
    const shard = Hashmod.bucket(t.address, shards);
    return { shard, zone: zones[shard % zones.length] };
  };
}

function row(layout: string, strategy: string, o: Outcome): string {
  const mean = o.perShard.reduce((a, b) => a + b, 0) / o.perShard.length;
  const idle = o.perShard.filter((n) => n === 0).length;
  return `| ${layout} | ${strategy} | ${(o.crossZone * 100).toFixed(1)} % | ${Math.min(...o.perShard)} – ${Math.max(...o.perShard)} | ` +
    `${(Math.max(...o.perShard) / mean).toFixed(2)} | ${idle} | ${o.unscraped} |`;
}

function placementTable(): string {
  const layouts: { zones: number; shards: number; weights?: number[]; perZone?: number[] }[] = [
    { zones: 3, shards: 3 },
    { zones: 3, shards: 6 },
    { zones: 3, shards: 7 },
    { zones: 3, shards: 10 },
    { zones: 2, shards: 5 },
    { zones: 4, shards: 9 },
    // a zone with twice the targets of the others: even shards, then weighted shards
    { zones: 3, shards: 8, weights: [2, 1, 1] },
    { zones: 3, shards: 8, weights: [2, 1, 1], perZone: [4, 2, 2] },
  ];
  const rows: string[] = [];
  for (const l of layouts) {
    const zones = Array.from({ length: l.zones }, (_, i) => `zone-${String.fromCharCode(97 + i)}`);
    const all = targets(zones, l.weights ?? zones.map(() => 1));
    const name = `${l.shards} shards / ${l.zones} zones${l.weights ? `, targets ${l.weights.join(':')}` : ''}`;
    const perZone = l.perZone && Object.fromEntries(zones.map((z, i) => [z, l.perZone![i]]));
    rows.push(
      row(name, perZone ? `cdk8s-zones, shardsPerZone ${l.perZone!.join('/')}` : 'cdk8s-zones (topology)', evaluate(l.shards, all, ours(zones, l.shards, perZone))),
      ...(perZone ? [] : [
        row(name, 'prometheus-operator shardingStrategy', evaluate(l.shards, all, operator(zones, l.shards))),
        row(name, 'address (classic)', evaluate(l.shards, all, address(zones, l.shards))),
      ]),
    );
  }
  return [
    '| layout | sharding | cross-zone scrapes | targets per shard (min – max) | max / mean | idle shards | unscraped targets |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

function prometheusApp(zones: string[], shards: number, output: PrometheusOutput): App {
  const app = new App({ outdir: 'bench/out' });
  const chart = new Chart(app, 'bench', { disableResourceNameHashes: true });
  new TopologyShardedPrometheus(chart, 'prom', { topology: new ZoneTopology({ zones }), shards, output, namespace: 'monitoring' });
  return app;
}

function synthCase(name: string, zones: string[], shards: number, output: PrometheusOutput): BenchCase {
  return { name, fn: () => prometheusApp(zones, shards, output).synthYaml() };
}

/** The standalone output at `shards` shards, and its floor (the same documents as plain ApiObjects). */
function standaloneWithFloor(zones: string[], shards: number): { example: BenchCase; floor: BenchCase } {
  const label = `standalone, ${shards.toLocaleString('en')} shards`;
  const pair = floorOf(label, () => prometheusApp(zones, shards, PrometheusOutput.STANDALONE));
  return {
    example: { name: label, fn: () => pair.build().synthYaml() },
    floor: { name: `floor of ${label} (${pair.documents} plain ApiObjects)`, fn: () => pair.floor().synthYaml() },
  };
}

/** Per-shard cost from the slope between two shard counts, against the floor's slope. */
function perShardTable(low: number, high: number, timings: { example: Timing; floor: Timing }[]): string {
  const slope = (pick: 'example' | 'floor') => (timings[1][pick].medianMs - timings[0][pick].medianMs) / (high - low);
  const ms = (t: Timing) => t.medianMs.toFixed(1);
  return [
    `| output | ${low} shards ms | ${high.toLocaleString('en')} shards ms | per shard ms (slope) | ratio to floor |`,
    '| --- | ---: | ---: | ---: | ---: |',
    `| standalone | ${ms(timings[0].example)} | ${ms(timings[1].example)} | ${slope('example').toFixed(3)} | ${(slope('example') / slope('floor')).toFixed(2)} |`,
    `| floor: the same documents as plain ApiObjects | ${ms(timings[0].floor)} | ${ms(timings[1].floor)} | ${slope('floor').toFixed(3)} | 1.00 |`,
  ].join('\n');
}

export function prometheusBench(): BenchSection {
  const one = ['zone-a'];
  const three = ['zone-a', 'zone-b', 'zone-c'];
  const [low, high] = [64, 1000];
  const standalone = [standaloneWithFloor(three, low), standaloneWithFloor(three, high)];
  const timings = measureSideBySide([
    synthCase('operator, 1 shard', one, 1, PrometheusOutput.OPERATOR),
    synthCase('operator, 64 shards', three, 64, PrometheusOutput.OPERATOR),
    synthCase('operator, 1,000 shards', three, 1000, PrometheusOutput.OPERATOR),
    synthCase('standalone, 1 shard', one, 1, PrometheusOutput.STANDALONE),
    ...standalone.flatMap((s) => [s.example, s.floor]),
  ], { warmup: 1, reps: SYNTH_REPS });
  const timingOf = (c: BenchCase) => timings.find((t) => t.name === c.name)!;
  return {
    title: 'TopologyShardedPrometheus: zone locality, load balance, synthesis time',
    body: [
      `${TARGETS.toLocaleString('en')} synthetic targets, dealt evenly over the zones unless a ratio is given, one in ` +
      `${UNZONED_EVERY} without a known zone, assigned to shards with the TypeScript hashmod (proven equal to Prometheus's by ` +
      'test/integration/prometheus). Cross-zone: targets with a known zone scraped by a shard in another zone (classic ' +
      'address sharding with its pods spread round-robin over the zones). max / mean: the busiest shard against the average ' +
      'over all shards, idle ones included. prometheus-operator\'s shardingStrategy gives each zone floor(shards / zones) ' +
      'buckets, so with shards not a multiple of the zones the extra shards scrape nothing, and it drops targets without a ' +
      'zone; cdk8s-zones gives them to the first zone\'s shards. An extra shard relieves only its own zone: the busiest ' +
      'shard gets lighter when every zone gains one, or when the shards follow the targets (shardsPerZone).',
      '',
      placementTable(),
      '',
      `Synthesis time (\`App.synthYaml()\`, in-process, cases interleaved, 1 warm-up, ${SYNTH_REPS} repetitions; 1 shard uses a one-zone ` +
      'topology). The operator output is one `Prometheus` per zone whatever the shard count; the standalone output is a ' +
      'ConfigMap, StatefulSet and PodDisruptionBudget per shard.',
      '',
      timingTable(timings, timings[0]),
      '',
      `Per shard, standalone: the slope between ${low} and ${high.toLocaleString('en')} shards (the medians above), against the ` +
      'slope of its floor, the same documents as plain cdk8s `ApiObject`s (each output synthesized once; the floor writes ' +
      'the same documents, key order aside). Synthesis is synchronous and single-threaded: on an idle core its time is its CPU time.',
      '',
      perShardTable(low, high, standalone.map((s) => ({ example: timingOf(s.example), floor: timingOf(s.floor) }))),
    ].join('\n'),
  };
}
