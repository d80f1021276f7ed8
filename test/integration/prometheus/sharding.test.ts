/**
 * The proof that the generated relabel rules shard correctly, run by the real Prometheus: one process
 * per shard on 127.0.0.1, each loading the rules `ShardRelabeling` generates (the code the construct
 * uses) over a file_sd target list; /api/v1/targets says which shard keeps which target.
 *
 * One pool of processes serves every configuration: process i carries one scrape job per configuration
 * with more than i shards (shard i's rules), so 2, 3 and 4 zones with every shard count from Z to 3Z+1
 * run side by side in 13 processes, started once. The examples' output (the standalone prometheus.yml
 * files, the operator output's scrape classes, and the same as PrometheusAgents) then runs on the same
 * processes, reloaded.
 */
import * as fs from 'fs';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import { activeShards, ShardPool } from './shard-pool';
import { expectedZone, fileSdTargets, KubernetesTarget, kubernetesTargets, SyntheticTarget, syntheticTargets } from './targets';
import { build as build3Zones } from '../../../examples/prometheus-3-zones/main';
import { build as buildStandalone } from '../../../examples/prometheus-standalone/main';
import { Hashmod, PrometheusOutput, ShardPlan, ShardRelabeling, TopologyShardedPrometheus, ZoneTopology } from '../../../src';
import { prometheusConfig, renderConfig } from '../../../src/prometheus/config';

const pool = new ShardPool();
afterAll(async () => {
  await pool.stop();
});

const ALL_ZONES = ['zone-a', 'zone.b', 'zone-c', 'zone-d'];
const TARGETS_PER_CONFIG = 600;

interface Case {
  readonly job: string;
  readonly zones?: string[]; // topology mode when set
  readonly shards: number;
  readonly kubernetesVersion?: string;
  /** The zone count whose targets the job keeps. */
  readonly targetSet: number;
}

describe('sharding with a real Prometheus (file_sd + the generated relabel rules)', () => {
  // One target file for every job, each job keeping its own set (label __meta_target_set): one file_sd
  // provider and one inotify instance per process (the machine allows 128 per user, shared by everyone).
  const targetsByZones = new Map<number, SyntheticTarget[]>();
  for (const z of [2, 3, 4]) {
    targetsByZones.set(z, syntheticTargets(ALL_ZONES.slice(0, z), TARGETS_PER_CONFIG, 1000 + z));
  }
  const targetsFile = path.join(pool.dir, 'targets.json');
  fs.writeFileSync(targetsFile, fileSdTargets([...targetsByZones].flatMap(([z, targets]) =>
    targets.map((t) => ({ ...t.labels, __address__: t.address, __meta_target_set: `${z}` })))));
  const discovered = TARGETS_PER_CONFIG * targetsByZones.size;

  const cases: Case[] = [];
  for (const z of [2, 3, 4]) {
    for (let shards = z; shards <= 3 * z + 1; shards++) {
      cases.push({ job: `topology-${z}z-${shards}s`, zones: ALL_ZONES.slice(0, z), shards, targetSet: z });
    }
  }
  // Kubernetes >= 1.35: the pod label replaces the node label.
  for (const shards of [3, 5]) {
    cases.push({ job: `topology-3z-${shards}s-k8s-1.35`, zones: ALL_ZONES.slice(0, 3), shards, kubernetesVersion: '1.35', targetSet: 3 });
  }
  for (const shards of [1, 2, 5, 7]) {
    cases.push({ job: `address-${shards}s`, shards, targetSet: 3 });
  }
  const shardCount = Math.max(...cases.map((c) => c.shards));

  /** Shard i's scrape job of a case. */
  function scrapeJob(c: Case, shard: number): any {
    let rules;
    if (c.zones) {
      const topology = new ZoneTopology({ zones: c.zones, kubernetesVersion: c.kubernetesVersion });
      const s = ShardPlan.plan({ topology, shards: c.shards }).shards[shard];
      rules = ShardRelabeling.forShard({
        topology,
        zone: s.zone,
        inZoneIndex: s.inZoneIndex,
        zoneShards: s.zoneShards,
      });
    } else {
      rules = ShardRelabeling.byAddress(shard, c.shards);
    }
    return {
      job_name: c.job,
      file_sd_configs: [{ files: [targetsFile] }],
      relabel_configs: [
        { source_labels: ['__meta_target_set'], regex: `${c.targetSet}`, action: 'keep' },
        ...ShardRelabeling.toPrometheusConfig(rules),
      ],
    };
  }

  let byJob: Map<string, Map<string, number[]>>;
  const started = Date.now();

  beforeAll(async () => {
    const configs = Array.from({ length: shardCount }, (_, shard) => renderConfig(prometheusConfig(
      { scrapeInterval: '1h', externalLabels: {} },
      cases.filter((c) => c.shards > shard).map((c) => scrapeJob(c, shard)),
    )));
    await pool.configure(configs);
    const expected = configs.map((_, shard) => Object.fromEntries(
      cases.filter((c) => c.shards > shard).map((c) => [c.job, discovered])));
    byJob = activeShards(await pool.targetsOnceDiscovered(expected));
    console.log(`${cases.length} configurations on ${pool.size} Prometheus processes: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  test.each(cases.filter((c) => c.zones).map((c) => [c.job, c] as const))(
    '%s: every target is active on exactly one shard, in its own zone, in the bucket TypeScript hashmod predicts; no shard idle',
    (_, c) => {
      const topology = new ZoneTopology({ zones: c.zones! });
      const plan = ShardPlan.plan({ topology, shards: c.shards });
      const active = byJob.get(c.job)!;
      const podLabels = c.kubernetesVersion !== undefined;
      const load = new Array(c.shards).fill(0);
      const targets = targetsByZones.get(c.targetSet)!;
      expect(active.size).toBe(targets.length);
      for (const t of targets) {
        const shards = active.get(t.address) ?? [];
        const zone = expectedZone(t, c.zones!, podLabels);
        if (zone === undefined) {
          // sharding disabled: every shard scrapes it
          const everyShard = plan.shards.map((s) => s.index);
          expect({ address: t.address, shards }).toEqual({ address: t.address, shards: everyShard });
          continue;
        }
        const zoneShards = plan.shardsInZone(zone).length;
        const want = plan.shardFor(zone, Hashmod.bucket(t.address, zoneShards)).index;
        expect({ address: t.address, form: t.form, shards })
          .toEqual({ address: t.address, form: t.form, shards: [want] });
        load[want]++;
      }
      expect(load.filter((n) => n === 0)).toEqual([]);
    });

  test.each(cases.filter((c) => !c.zones).map((c) => [c.job, c] as const))(
    '%s (classic address sharding): every target is active on exactly one shard, the one hashmod predicts',
    (_, c) => {
      const active = byJob.get(c.job)!;
      const targets = targetsByZones.get(c.targetSet)!;
      expect(active.size).toBe(targets.length);
      for (const t of targets) {
        const shards = active.get(t.address) ?? [];
        const want = t.form === 'disabled'
          ? Array.from({ length: c.shards }, (__, i) => i)
          : [Hashmod.bucket(t.address, c.shards)];
        expect({ address: t.address, shards }).toEqual({ address: t.address, shards: want });
      }
    });

  test('the targets cover every zone form, including unzoned, unknown and decoy zones', () => {
    for (const [, targets] of targetsByZones) {
      const forms = new Set(targets.map((t) => t.form));
      for (const form of ['endpointslice', 'node', 'both', 'pod', 'none', 'unknown', 'decoy', 'disabled']) expect(forms).toContain(form);
    }
  });
});

/**
 * The pods of the prometheus-standalone example's shards as kubernetes_sd (role pod, node metadata) would find them:
 * twelve per zone (enough that every shard of a zone gets some), each with its web port, and every third with a
 * sidecar's port the job must drop.
 */
function shardPodTargets(zones: readonly string[]): KubernetesTarget[] {
  const perZone = Array.from({ length: 12 }, (_, i) => i);
  const ports = (i: number) => (i % 3 === 0 ? ['web', 'sidecar'] : ['web']);
  return zones.flatMap((zone, z) => perZone.flatMap((i) => ports(i).map((port, p): KubernetesTarget => {
    const address = `10.${z + 1}.${i}.7:${9090 + p}`;
    return {
      zone,
      scraped: port === 'web' ? address : undefined,
      labels: {
        __address__: address,
        __meta_kubernetes_namespace: 'monitoring',
        __meta_kubernetes_pod_name: `prometheus-${zone}-${i}-0`,
        __meta_kubernetes_pod_phase: 'Running',
        __meta_kubernetes_pod_container_name: port === 'web' ? 'prometheus' : 'sidecar',
        __meta_kubernetes_pod_container_port_name: port,
        __meta_kubernetes_pod_label_app_kubernetes_io_name: 'prometheus',
        __meta_kubernetes_pod_labelpresent_app_kubernetes_io_name: 'true',
        __meta_kubernetes_pod_label_app_kubernetes_io_instance: 'prometheus',
        __meta_kubernetes_pod_labelpresent_app_kubernetes_io_instance: 'true',
        __meta_kubernetes_node_label_topology_kubernetes_io_zone: zone,
        __meta_kubernetes_node_labelpresent_topology_kubernetes_io_zone: 'true',
      },
    };
  })));
}

/** The examples' output, run by the real Prometheus on targets shaped like Kubernetes discovery's. */
describe('the examples, with a real Prometheus', () => {
  const EXAMPLE_ZONES = ['zone-a', 'zone-b', 'zone-c'];
  const { pods, endpoints } = kubernetesTargets(EXAMPLE_ZONES, 800, 7);
  const podsFile = path.join(pool.dir, 'pods.json');
  const endpointsFile = path.join(pool.dir, 'endpoints.json');
  fs.writeFileSync(podsFile, fileSdTargets(pods.map((t) => t.labels)));
  fs.writeFileSync(endpointsFile, fileSdTargets(endpoints.map((t) => t.labels)));
  const manifestsOf = (build: (app: App) => void) => {
    const app = new App();
    build(app);
    return app.charts.flatMap((c) => Testing.synth(c));
  };

  /** Every scraped target is active exactly on the shard the plan and TypeScript hashmod say; the rest nowhere. */
  function expectExactlyOnce(
    targets: KubernetesTarget[],
    active: Map<string, number[]>,
    shardOf: (zone: string, address: string) => number,
  ) {
    const scraped = targets.filter((t) => t.scraped !== undefined);
    expect(scraped.length).toBeGreaterThan(targets.length / 2);
    expect(active.size).toBe(scraped.length); // the opted-out and not-running targets are scraped by nobody
    for (const t of scraped) {
      expect({ address: t.scraped, shards: active.get(t.scraped!) })
        .toEqual({ address: t.scraped, shards: [shardOf(t.zone, t.scraped!)] });
    }
  }

  test('prometheus-standalone: each shard\'s own prometheus.yml (kubernetes_sd swapped for file_sd) scrapes every target exactly once, in its zone', async () => {
    const manifests = manifestsOf(buildStandalone);
    const plan = ShardPlan.plan({ topology: new ZoneTopology({ zones: EXAMPLE_ZONES }), shards: 7 });
    // the example monitors its own shards: a pod job of their own, which finds its shards' pods on their web port
    const ownJob = 'monitoring/prometheus-prometheus/web';
    const shardPods = shardPodTargets(EXAMPLE_ZONES);
    const shardPodsFile = path.join(pool.dir, 'shard-pods.json');
    fs.writeFileSync(shardPodsFile, fileSdTargets(shardPods.map((t) => t.labels)));
    const files: { [job: string]: string } = {
      'kubernetes-pods': podsFile, 'kubernetes-service-endpoints': endpointsFile, [ownJob]: shardPodsFile,
    };
    const configs = plan.shards.map((s) => {
      const configMap = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === `prometheus-${s.zone}-${s.inZoneIndex}`);
      const config = yaml.parse(configMap.data['prometheus.yml']);
      for (const job of config.scrape_configs) {
        expect(job.kubernetes_sd_configs).toHaveLength(1);
        delete job.kubernetes_sd_configs; // compiled out of Debian's Prometheus: the same labels come from a file
        job.file_sd_configs = [{ files: [files[job.job_name]] }];
      }
      return yaml.stringify(config);
    });
    await pool.configure(configs);
    const byJob = activeShards(await pool.targetsOnceDiscovered(configs.map(() => ({
      'kubernetes-pods': pods.length, 'kubernetes-service-endpoints': endpoints.length, [ownJob]: shardPods.length,
    }))));
    const shardOf = (zone: string, address: string) => {
      const bucket = Hashmod.bucket(address, plan.shardsInZone(zone).length);
      return plan.shardFor(zone, bucket).index;
    };
    expectExactlyOnce(pods, byJob.get('kubernetes-pods')!, shardOf);
    expectExactlyOnce(endpoints, byJob.get('kubernetes-service-endpoints')!, shardOf);
    // each shard's pod scraped exactly once, by a shard of its own zone (the other pods' containers are dropped)
    expectExactlyOnce(shardPods, byJob.get(ownJob)!, shardOf);
  });

  /** The prometheus-3-zones example's TopologyShardedPrometheus with the agent output (PrometheusAgent resources). */
  const agentsOf3Zones = () => {
    const chart = new Chart(new App(), 'agents', { disableResourceNameHashes: true });
    new TopologyShardedPrometheus(chart, 'prometheus', {
      name: 'prometheus',
      namespace: 'monitoring',
      topology: new ZoneTopology({ zones: EXAMPLE_ZONES }),
      shards: 6,
      replicas: 2,
      externalLabels: { cluster: 'example' },
      output: PrometheusOutput.AGENT,
      remoteWrite: [{ url: 'https://mimir.example/api/v1/push' }],
    });
    return Testing.synth(chart).filter((m) => m.kind === 'PrometheusAgent');
  };

  test.each([
    ['prometheus-3-zones: each Prometheus', () => manifestsOf(build3Zones).filter((m) => m.kind === 'Prometheus')],
    ['the same as PrometheusAgents: each PrometheusAgent', agentsOf3Zones],
  ])('%s resource\'s scrape class plus prometheus-operator\'s address sharding scrapes every target exactly once, in its zone', async (_what, resources) => {
    const prometheuses = resources();
    expect(prometheuses).toHaveLength(EXAMPLE_ZONES.length);
    // prometheus-operator runs spec.shards StatefulSets per Prometheus; shard n appends classic address
    // sharding (hashmod spec.shards, keep n) after the scrape class's relabelings.
    const shards = prometheuses.flatMap((p) => Array.from({ length: p.spec.shards }, (_, n) => ({ prometheus: p, n })));
    const configs = shards.map(({ prometheus, n }) => renderConfig(prometheusConfig(
      { scrapeInterval: '1h', externalLabels: prometheus.spec.externalLabels },
      [{
        job_name: 'service-monitor',
        file_sd_configs: [{ files: [endpointsFile] }],
        relabel_configs: [
          ...prometheus.spec.scrapeClasses[0].relabelings.map(toConfigSpelling),
          ...ShardRelabeling.toPrometheusConfig(ShardRelabeling.byAddress(n, prometheus.spec.shards)),
        ],
      }],
    )));
    await pool.configure(configs);
    const discovered = await pool.targetsOnceDiscovered(configs.map(() => ({ 'service-monitor': endpoints.length })));
    const active = activeShards(discovered).get('service-monitor')!;
    const everyEndpoint = endpoints.map((t) => ({ ...t, scraped: t.labels.__address__ }));
    expectExactlyOnce(everyEndpoint, active, (zone, address) => shards.findIndex(({ prometheus, n }) =>
      prometheus.spec.externalLabels.zone === zone && n === Hashmod.bucket(address, prometheus.spec.shards)));
  });
});

/** A rule in prometheus-operator spelling, in Prometheus configuration spelling. */
function toConfigSpelling(rule: any): any {
  const { sourceLabels, targetLabel, ...rest } = rule;
  return {
    ...rest,
    ...(sourceLabels ? { source_labels: sourceLabels } : {}),
    ...(targetLabel ? { target_label: targetLabel } : {}),
  };
}
