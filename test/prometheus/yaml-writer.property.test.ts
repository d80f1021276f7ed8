/**
 * Property: prometheus.yml's own YAML writer writes byte for byte what the yaml library (through cdk8s's
 * `Yaml.stringify`, the rendering it replaced, kept here as the reference) writes: for any data in its
 * domain, for every configuration TopologyShardedPrometheus produces (awkward zones, shard counts, modes,
 * external labels, scrape intervals, zone sources, a monitored component's job and rule file), and for every relabel
 * rule relabel.ts makes. Outside
 * its domain it declines, and renderConfig falls back to the reference.
 */
import { Chart, Duration, Testing, Yaml } from 'cdk8s';
import * as fc from 'fast-check';
import {
  PrometheusOutput, RelabelAction, RelabelRule, ShardingMode, ShardRelabeling, TopologyShardedPrometheus,
  ZoneController, ZoneTopology,
} from '../../src';
import * as config from '../../src/prometheus/config';
import { toConfigSpelling } from '../../src/prometheus/relabel';
import { writeYaml } from '../../src/prometheus/yaml-writer';

/** The rendering the writer replaced. */
const reference = (doc: unknown): string => Yaml.stringify(doc);

/** Pieces that decide how YAML spells a string: indicators, YAML 1.1 non-strings, quotes, escapes, unicode. */
const AWKWARD = [
  '', 'a', 'zone-a', 'yes', 'No', 'ON', 'off', 'y', 'N', 'true', 'FALSE', '~', 'null', 'Null', 'NULL',
  '0', '007', '0755', '08', '0x1F', '0b101', '1_000', '12', '-3', '+4', '1.5', '.5', '.', '-.', '1e3', 'e5', 'E+1', '1.2e-3',
  '.inf', '-.Inf', '.NaN', '1:20', '190:20:30.15', '2001-12-14', '2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', '<<',
  '-', '?', ' ', '\t', ':', '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '%', '@', '`', '"', "'", '\\',
  '\\n', '\\u0000', '\x00', '\x07', '\x08', '\x0b', '\x0c', '\r', '\x1b', '\x1f', '\x7f', '\x85', '\x9f', '\xa0', '\u2028', '\ufeff',
  '\ud800', '\udc00', 'é', 'Ω', '😀', '${POD_NAME}', '$$', '$1', '---', '...', '(.+);', 'a|b', '__tmp_topology',
];
const piecewise = fc.array(fc.constantFrom(...AWKWARD), { maxLength: 5 }).map((pieces) => pieces.join(''));
const anyString = fc.oneof(piecewise, fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }));
/** A string on one line: what the writer spells itself. */
const oneLine = anyString.filter((s) => !s.includes('\n'));
const multiLine = fc.tuple(anyString, anyString).map(([a, b]) => `${a}\n${b}`);

/** Label names, YAML 1.1 words among them (yaml quotes `y:` and `on:` as keys too). */
const labelName = fc.oneof(
  fc.constantFrom('y', 'Y', 'n', 'yes', 'on', 'Off', 'null', 'NULL', 'true', 'e5', 'E1', '_', 'a', 'job_name', 'zone', 'cluster'),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/).filter((k) => k !== '__proto__'),
);
const integer = fc.oneof(
  fc.integer({ min: -1000, max: 1_000_000 }),
  fc.maxSafeInteger(),
  fc.constant(Number.MIN_SAFE_INTEGER),
);

/** Data in the writer's domain: non-empty mappings with label-name keys, sequences of scalars or mappings. */
const { mapping } = fc.letrec<{ scalar: unknown; mapping: { [key: string]: unknown }; sequence: unknown[] }>((tie) => ({
  scalar: fc.oneof(oneLine, fc.boolean(), integer),
  mapping: fc.dictionary(labelName, fc.oneof({ depthSize: 'small' }, tie('scalar'), tie('mapping'), tie('sequence')),
    { minKeys: 1, maxKeys: 4, noNullPrototype: true }),
  sequence: fc.array(fc.oneof({ depthSize: 'small' }, tie('scalar'), tie('mapping')), { minLength: 1, maxLength: 4 }),
}));

describe('the writer on its own', () => {
  test('writes any data in its domain as the yaml library does', () => {
    fc.assert(fc.property(mapping, (doc) => {
      expect(writeYaml(doc)).toBe(reference(doc));
    }), { numRuns: 1000 });
  });

  test('every awkward string, as a key\'s value and as a sequence item', () => {
    for (const s of AWKWARD.flatMap((a) => AWKWARD.map((b) => a + b))) {
      const doc = { key: s, list: [s, { item: s }] };
      expect(writeYaml(doc)).toBe(reference(doc));
    }
  });

  test('declines what it does not spell (line breaks, empty collections, null, fractions, long keys, aliases); renderConfig falls back', () => {
    const shared = { a: 1 };
    const outside = fc.oneof(
      multiLine, fc.constant([]), fc.constant({}), fc.constant(null), fc.constant(undefined), fc.constant(-0),
      fc.constant(0.5),
      fc.constant(2 ** 53), fc.constant([[1]]), fc.constant({ ['k'.repeat(1025)]: 'v' }), fc.constant({ 'not a label': 1 }),
      fc.constant({ a: shared, b: shared }), fc.constant(new Date(0)), multiLine.map((s) => ({ [s]: 1 })),
    );
    fc.assert(fc.property(mapping, labelName, outside, (doc, key, bad) => {
      const withBad = { ...doc, [key]: bad };
      expect(writeYaml(withBad)).toBeUndefined();
      expect(config.renderConfig(withBad)).toBe(reference(withBad));
    }), { numRuns: 300 });
    expect(writeYaml([{ a: 1 }])).toBeUndefined();
  });

  test('keys at yaml\'s 1,024-character limit of implicit keys, quoted or not', () => {
    for (let n = 1020; n <= 1026; n++) {
      for (const name of ['k'.repeat(n), `e${'1'.repeat(n - 1)}`]) {
        const doc = { [name]: 'v' };
        const spelled = (name.startsWith('e') ? n + 2 : n) <= 1024;
        expect(writeYaml(doc)).toBe(spelled ? reference(doc) : undefined);
        expect(config.renderConfig(doc)).toBe(reference(doc));
      }
    }
  });
});

/** Zone names a ZoneTopology accepts, YAML 1.1 look-alikes among them. */
const zoneName = fc.oneof(
  fc.constantFrom('yes', 'No', 'on', 'null', 'y', '0', '0755', '1e3', '1_0', '0x1F', '2001-12-14', '1.5', 'zone.b', 'Zone_C', 'true'),
  fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?$/),
);
const zones = fc.uniqueArray(zoneName, { minLength: 1, maxLength: 4 }).filter((z) => {
  try {
    new ZoneTopology({ zones: z });
    return true;
  } catch {
    return false;
  }
});
const topology = fc.record({
  zones,
  topologyKey: fc.constantFrom(undefined, 'example.com/rack.zone'),
  region: fc.constantFrom(undefined, 'eu-1', 'yes'),
  kubernetesVersion: fc.constantFrom(undefined, '1.30', '1.34', '1.35'),
}).map((t) => new ZoneTopology(t));
const scrapeInterval = fc.constantFrom('30s', '0', '15s', '1m', '1h30m', '1d', '2w', '1y', '10ms', '1y2w3d4h5m6s7ms');
/** The construct's Duration prop: whole milliseconds, from one to a year. */
const scrapeEvery = fc.integer({ min: 1, max: 365 * 24 * 3600 * 1000 }).map((ms) => Duration.millis(ms));
const externalLabels = fc.dictionary(labelName.filter((k) => !k.startsWith('__') && k !== 'prometheus_replica'), anyString,
  { maxKeys: 3, noNullPrototype: true });

describe('every prometheus.yml of the construct', () => {
  test('standalone output: random zones, shard counts, modes, zone sources, external labels and scrape intervals', () => {
    const render = jest.spyOn(config, 'renderConfig');
    const props = fc.record({
      topology,
      mode: fc.constantFrom(ShardingMode.TOPOLOGY, ShardingMode.ADDRESS),
      extraShards: fc.integer({ min: 0, max: 6 }),
      externalLabelName: fc.constantFrom(undefined, 'az', 'y', ''),
      externalLabels,
      scrapeInterval: scrapeEvery,
      replicas: fc.integer({ min: 1, max: 2 }),
      monitorsController: fc.boolean(),
    });
    fc.assert(fc.property(props, (p) => {
      const topologyMode = p.mode === ShardingMode.TOPOLOGY;
      const zoneLabel = topologyMode ? p.externalLabelName ?? 'zone' : '';
      const labels = Object.fromEntries(Object.entries(p.externalLabels).filter(([k]) => k !== zoneLabel));
      render.mockClear();
      const chart = new Chart(Testing.app(), 'mon', { disableResourceNameHashes: true });
      const prometheus = new TopologyShardedPrometheus(chart, 'prom', {
        topology: p.topology,
        shards: (topologyMode ? p.topology.zoneCount : 1) + p.extraShards,
        mode: p.mode,
        output: PrometheusOutput.STANDALONE,
        namespace: 'monitoring',
        externalLabelName: topologyMode ? p.externalLabelName : undefined,
        externalLabels: labels,
        scrapeInterval: p.scrapeInterval,
        replicas: p.replicas,
      });
      // its scrape job and rule files too
      if (p.monitorsController) prometheus.monitor(new ZoneController(chart, 'controller', { image: 'example.com/controller:1' }));
      Testing.synth(chart); // the configurations are rendered when the app is synthesized
      expect(render.mock.calls.length).toBeGreaterThan(0);
      const spelled = !Object.values(labels).some((v) => v.includes('\n'));
      render.mock.calls.forEach(([doc], i) => {
        expect(render.mock.results[i].value).toBe(reference(doc));
        if (spelled) expect(writeYaml(doc)).toBeDefined();
      });
    }), { numRuns: 150 });
    render.mockRestore();
  });

  test('the rules of ShardRelabeling (forShard, byAddress) and any RelabelRule, in a prometheus.yml', () => {
    const anyRule: fc.Arbitrary<RelabelRule> = fc.record({
      sourceLabels: fc.array(labelName, { minLength: 1, maxLength: 3 }),
      separator: oneLine,
      targetLabel: oneLine.filter((s) => s !== ''),
      regex: oneLine,
      modulus: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      replacement: oneLine,
      action: fc.constantFrom(...Object.values(RelabelAction)),
    }, { requiredKeys: [] });
    const rules = fc.oneof(
      fc.record({
        topology,
        zoneIndex: fc.nat(),
        inZoneIndex: fc.nat(5),
        extra: fc.nat(5),
        hashLabel: fc.constantFrom(undefined, '__param_target', 'y'),
      }).map((r) => ShardRelabeling.forShard({
        topology: r.topology,
        zone: r.topology.zones[r.zoneIndex % r.topology.zoneCount],
        inZoneIndex: r.inZoneIndex,
        zoneShards: r.inZoneIndex + 1 + r.extra,
        hashLabel: r.hashLabel,
      })),
      fc.tuple(fc.nat(20), fc.nat(20)).map(([index, extra]) => ShardRelabeling.byAddress(index, index + 1 + extra)),
      fc.array(anyRule, { minLength: 1, maxLength: 4 }),
    );
    const labels = fc.dictionary(labelName, oneLine, { maxKeys: 3, noNullPrototype: true });
    const replicaLabels = fc.constantFrom(undefined, 'replica');
    fc.assert(fc.property(
      rules,
      scrapeInterval,
      labels,
      replicaLabels,
      oneLine,
      (r, interval, l, replicaLabel, job) => {
        const doc = config.prometheusConfig({ scrapeInterval: interval, externalLabels: l, replicaLabel }, [
          { job_name: job, static_configs: [{ targets: ['localhost:9090'] }], relabel_configs: r.map(toConfigSpelling) },
          ...config.kubernetesScrapeConfigs(r, { nodeMetadata: true }),
        ]);
        expect(writeYaml(doc)).toBe(reference(doc));
      },
    ), { numRuns: 300 });
  });
});
