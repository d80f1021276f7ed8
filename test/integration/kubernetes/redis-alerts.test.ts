/**
 * A monitored ZonalRedisCluster's zone alert, end to end with real programs: the cluster (3 masters x 1 replica over
 * the tier's 3 zones) runs as real redis-server processes on its kwok pods' IPs (redis-on-kwok.ts), driven by the real
 * controller's `redis` reconciler; each pod's exporter container runs the real exporter (Debian's
 * prometheus-redis-exporter) as its pod would, on the pod's IP; and a real Prometheus runs zone-a's shard of a
 * synthesized standalone TopologyShardedPrometheus that monitors the controller and the cluster: its own
 * prometheus.yml (kubernetes_sd, compiled out of Debian's Prometheus, swapped for a file of the targets it would
 * discover from the real pods) and its own rule file.
 *
 * The shard scrapes the controller and zone-a's exporters, nothing of the other zones. Then a real condition: the
 * manager paused (its annotation), a replica made by hand (CLUSTER REPLICATE) the replica of the master of its own
 * zone. The controller reports the layout it finds, ZonalRedisShardInOneZone goes pending, then fires after its
 * `for`; once the pause is lifted the manager moves the replica back, and the alert clears.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { App, Chart, Duration } from 'cdk8s';
import * as yaml from 'yaml';
import { ControllerProcess } from './controller-process';
import { applyManifests, deleteNamespace } from './examples';
import { podTargets } from './pod-discovery';
import { emulatedPod, RedisOnKwok, RedisStatus } from './redis-on-kwok';
import { testCluster, uniqueName, zoneOfNode } from './scheduling';
import { waitFor } from './wait';
import { REDIS_PAUSED_ANNOTATION, REDIS_PORT, layoutConfigMapName } from '../../../src/contract/redis';
import { SHARD_IN_ONE_ZONE_FOR } from '../../../src/monitoring/redis-rules';
import { PrometheusOutput } from '../../../src/prometheus/options';
import { TopologyShardedPrometheus } from '../../../src/prometheus/prometheus';
import { EXPORTER_PORT } from '../../../src/redis/exporter';
import { RedisRole } from '../../../src/redis/layout';
import { ZoneTopology } from '../../../src/topology/zone-topology';
import { ZoneController } from '../../../src/zone-controller/zone-controller';
import { stopWhenOrphaned } from '../processes';
import { programPath } from '../programs';
import { PrometheusProcess } from '../prometheus/prometheus-process';
import { fileSdTargets } from '../prometheus/targets';
import { nodeClient } from '../redis/redis-keys';
import { AWKWARD_PASSWORD } from '../redis/redis-processes';

const cluster = testCluster();
const { client, info } = cluster;
const ns = uniqueName('redis-alerts');
const NAME = 'cache';
const SCRAPED_ZONE = info.zones[0];
const SCRAPE_INTERVAL = Duration.seconds(2);
const onKwok = new RedisOnKwok(client, info, ns, { name: NAME, password: AWKWARD_PASSWORD, nodeTimeoutMs: 1000 });
const dir = path.join(info.logsDir, ns);
let controller: ControllerProcess | undefined;
let prometheus: PrometheusProcess | undefined;
const exporters: ChildProcess[] = [];

afterAll(async () => {
  for (const exporter of exporters) exporter.kill('SIGKILL');
  await prometheus?.stop();
  await controller?.stop();
  await onKwok.close();
  await deleteNamespace(client, ns);
  client.close();
});

/** The app: the cluster, a ZoneController that runs its manager, and a standalone Prometheus that monitors both. */
function synthesize(): { redis: any[]; controllerPod: any; shardConfig: any; rules: { [file: string]: string } } {
  let controllerChart!: Chart;
  let monitoringChart!: Chart;
  const redis = onKwok.manifests((app: App, redisCluster) => {
    controllerChart = new Chart(app, 'controller', { namespace: 'zones-system', disableResourceNameHashes: true });
    const zoneController = new ZoneController(controllerChart, 'controller', {
      image: 'registry.example/cdk8s-zones/controller:test', redisManager: true, workloadNamespaces: [ns],
    });
    monitoringChart = new Chart(app, 'monitoring', { disableResourceNameHashes: true });
    const shards = new TopologyShardedPrometheus(monitoringChart, 'prometheus', {
      name: 'prometheus',
      namespace: 'monitoring',
      topology: new ZoneTopology({ zones: [...info.zones] }),
      shards: info.zones.length,
      output: PrometheusOutput.STANDALONE,
      scrapeInterval: SCRAPE_INTERVAL,
    });
    shards.monitor(zoneController);
    shards.monitor(redisCluster);
  });
  const deployment = controllerChart.toJson().find((o: any) => o.kind === 'Deployment');
  const monitoring = monitoringChart.toJson();
  const configMap = (name: string) => monitoring.find((o: any) => o.kind === 'ConfigMap' && o.metadata.name === name);
  return {
    redis,
    controllerPod: {
      metadata: { ...deployment.spec.template.metadata, name: 'controller-0', namespace: 'zones-system' },
      spec: deployment.spec.template.spec,
    },
    shardConfig: yaml.parse(configMap(`prometheus-${SCRAPED_ZONE}-0`).data['prometheus.yml']),
    rules: configMap('prometheus-rules').data,
  };
}

/** Runs the exporter container of each pod as its pod would, on the pod's IP (the pod's own arguments otherwise). */
async function runExporters(pods: any[]): Promise<void> {
  const configMap = await client.get<any>('v1', 'ConfigMap', `${NAME}-config`, ns);
  const secrets = new Map([['redis-password', await client.get<any>('v1', 'Secret', 'redis-password', ns)]]);
  for (const pod of pods) {
    const emulated = emulatedPod(pod, path.join(dir, 'exporters', pod.metadata.name), configMap, secrets);
    emulated.runInitContainers();
    const container = pod.spec.containers.find((c: any) => c.name === 'exporter');
    const ip = pod.status.podIP;
    // a pod's redis-server answers on localhost; here it does on the pod's IP only (the pods share this machine's
    // loopback), so the address is mapped, in the arguments and in the password file the init container wrote
    const [local, mapped] = [`redis://127.0.0.1:${REDIS_PORT}`, `redis://${ip}:${REDIS_PORT}`];
    const argv = emulated.argv(container).map((a: string) => a
      .replace(local, mapped)
      .replace(new RegExp(`^:${EXPORTER_PORT}$`), `${ip}:${EXPORTER_PORT}`));
    const passwordFile = argv[argv.indexOf('--redis.password-file') + 1];
    const { [local]: password, ...others } = JSON.parse(fs.readFileSync(passwordFile, 'utf8'));
    expect({ password: password === AWKWARD_PASSWORD, others }).toEqual({ password: true, others: {} });
    fs.writeFileSync(passwordFile, JSON.stringify({ [mapped]: password }));
    const log = fs.openSync(path.join(dir, `exporter-${pod.metadata.name}.log`), 'a');
    const exporter = spawn(programPath('redis_exporter'), argv, { stdio: ['ignore', log, log], env: emulated.env(container) });
    fs.closeSync(log);
    stopWhenOrphaned(exporter.pid!);
    exporters.push(exporter);
  }
}

/** The shard's prometheus.yml with its discovery from `targetsFile` and its rules from `rulesDir`. */
function localConfig(config: any, targetsFile: string, rulesDir: string): string {
  const empty = path.join(dir, 'no-targets.json');
  fs.writeFileSync(empty, '[]');
  for (const job of config.scrape_configs) {
    const [discovery] = job.kubernetes_sd_configs;
    delete job.kubernetes_sd_configs;
    job.file_sd_configs = [{ files: [discovery.role === 'pod' ? targetsFile : empty] }];
  }
  config.rule_files = config.rule_files.map((f: string) => path.join(rulesDir, path.basename(f)));
  return yaml.stringify(config);
}

async function api(what: string): Promise<any> {
  const body = await (await fetch(`${prometheus!.url}/api/v1/${what}`)).json() as any;
  if (body.status !== 'success') throw new Error(`Prometheus /api/v1/${what}: ${JSON.stringify(body)}`);
  return body.data;
}

/** The ZonalRedisShardInOneZone alerts, as Prometheus has them now. */
async function shardAlerts(): Promise<any[]> {
  const { alerts } = await api('alerts');
  return alerts.filter((a: any) => a.labels.alertname === 'ZonalRedisShardInOneZone');
}

async function annotateLayout(annotations: { [key: string]: string | null }): Promise<void> {
  await client.patch('v1', 'ConfigMap', layoutConfigMapName(NAME), { metadata: { annotations } }, ns);
}

const statusWhere = (what: string, since: Date, check: (s: RedisStatus) => boolean) =>
  onKwok.statusWhere(what, since, check, controller);

test('zone-a\'s shard scrapes the real controller and zone-a\'s real exporters (each reaching its redis-server), nothing of the other zones', async () => {
  fs.mkdirSync(dir, { recursive: true });
  const app = synthesize();
  const { rejections, warnings } = await applyManifests(client, app.redis, ns);
  expect({ rejections, warnings }).toEqual({ rejections: [], warnings: [] });
  controller = await ControllerProcess.start(info, ns, ['--reconcilers', 'redis', '--redis-namespaces', ns, '--redis-interval', '1s']);
  const pods = await onKwok.runAllPods(app.redis, controller);
  await onKwok.statusWhere('the cluster healthy', new Date(0), (s) => s.healthy, controller);
  await runExporters(pods);

  const nodes = new Map((await client.list<any>('v1', 'Node')).map((n) => [n.metadata.name, n.metadata.labels]));
  const zoneLabels = (zone: string) => ({ 'topology.kubernetes.io/zone': zone });
  const targets = [
    ...podTargets({ ...app.controllerPod, status: { phase: 'Running', podIP: '127.0.0.1' } }, zoneLabels(SCRAPED_ZONE),
      () => `127.0.0.1:${controller!.metricsPort}`),
    ...pods.flatMap((pod) => podTargets(pod, nodes.get(pod.spec.nodeName)!)),
  ];
  const targetsFile = path.join(dir, 'pods.json');
  fs.writeFileSync(targetsFile, fileSdTargets(targets));
  const rulesDir = path.join(dir, 'rules');
  fs.mkdirSync(rulesDir, { recursive: true });
  for (const [file, text] of Object.entries(app.rules)) fs.writeFileSync(path.join(rulesDir, file), text);
  prometheus = await PrometheusProcess.start(path.join(dir, 'prometheus'), localConfig(app.shardConfig, targetsFile, rulesDir));

  const inZone = pods.filter((p) => zoneOfNode(info, p.spec.nodeName) === SCRAPED_ZONE);
  const expected = [`127.0.0.1:${controller.metricsPort}`, ...inZone.map((p) => `${p.status.podIP}:${EXPORTER_PORT}`)].sort();
  const active = await waitFor('the shard to scrape its zone\'s targets, each up', async () => {
    const { activeTargets } = await api('targets?state=active');
    const up = activeTargets.filter((t: any) => t.health === 'up').map((t: any) => t.labels.instance).sort();
    const state = JSON.stringify(activeTargets.map((t: any) => [t.labels.instance, t.health, t.lastError]));
    return { done: JSON.stringify(up) === JSON.stringify(expected), value: activeTargets, state };
  });
  expect(active).toHaveLength(expected.length);
  const redisUp = await waitFor('redis_up of zone-a\'s exporters', async () => {
    const { result } = await api('query?query=redis_up');
    return { done: result.length === inZone.length, value: result, state: JSON.stringify(result) };
  });
  expect(redisUp.map((r: any) => [r.metric.pod, r.value[1]]).sort())
    .toEqual(inZone.map((p) => [p.metadata.name, '1']).sort());
  // the controller's series keep the namespace, pod and zone of the Redis nodes they describe (honor_labels), not
  // its own pod's (the target's labels, which Prometheus would otherwise put first and rename theirs exported_*)
  const { result: redisNodes } = await api(`query?query=${encodeURIComponent('cdk8s_zones_redis_node')}`);
  expect(redisNodes.map((r: any) => [r.metric.namespace, r.metric.pod, r.metric.zone, r.metric.exported_zone]).sort())
    .toEqual(pods.map((p) => [ns, p.metadata.name, zoneOfNode(info, p.spec.nodeName), undefined]).sort());
  const { groups } = await api('rules');
  const shardRule = groups.flatMap((g: any) => g.rules).find((r: any) => r.name === 'ZonalRedisShardInOneZone');
  expect(shardRule).toMatchObject({ health: 'ok', state: 'inactive' });
});

test(`a replica moved by hand into its master's zone while the manager is paused: ZonalRedisShardInOneZone fires after ${SHARD_IN_ONE_ZONE_FOR}, and clears once the manager, resumed, moves it back`, async () => {
  let since = new Date();
  await annotateLayout({ [REDIS_PAUSED_ANNOTATION]: 'true' });
  await statusWhere('the manager paused', since, (s: any) => s.paused === true);

  // the replica of zone-a and the master of zone-a: another shard's
  const { layout } = onKwok;
  const master = layout.nodes.find((n) => n.zone === SCRAPED_ZONE && n.role === RedisRole.MASTER)!;
  const replica = layout.nodes.find((n) => n.zone === SCRAPED_ZONE && n.role === RedisRole.REPLICA)!;
  const masterPod = `${NAME}-${master.name}`;
  const address = (name: string) => onKwok.address(name);
  const toReplica = nodeClient(address(replica.name), AWKWARD_PASSWORD);
  const toMaster = nodeClient(address(master.name), AWKWARD_PASSWORD);
  try {
    const masterId = await toMaster.call('CLUSTER', 'MYID');
    expect(await toReplica.call('CLUSTER', 'REPLICATE', masterId as string)).toBe('OK');
  } finally {
    toReplica.disconnect();
    toMaster.disconnect();
  }
  since = new Date();
  const misplaced = await statusWhere(`${replica.name} the replica of ${master.name}`, since,
    (s) => s.nodes.some((n) => n.name === replica.name && n.master === master.name));
  expect(misplaced.issues.map((i: any) => i.kind)).toContain('paused');

  const pending = await waitFor('the alert to be pending', async () => {
    const alerts = await shardAlerts();
    return { done: alerts.some((a) => a.state === 'pending'), value: alerts, state: JSON.stringify(alerts) };
  }, { timeoutMs: 60_000 });
  const where = { zone: SCRAPED_ZONE, shard: masterPod, namespace: ns, cluster: NAME, severity: 'critical' };
  expect(pending.map((a) => a.labels)).toEqual([expect.objectContaining(where)]);
  const firing = await waitFor('the alert to fire', async () => {
    const alerts = await shardAlerts();
    return { done: alerts.some((a) => a.state === 'firing'), value: alerts, state: JSON.stringify(alerts) };
  }, { timeoutMs: 240_000 });
  expect(firing[0].annotations.summary)
    .toBe(`ZonalRedisCluster ${ns}/${NAME}: shard ${masterPod} has 2 nodes in zone ${SCRAPED_ZONE}; losing that zone loses the shard`);
  expect(Date.parse(firing[0].activeAt)).toBeLessThanOrEqual(Date.now() - 120_000);
  // paused all along: the manager has not moved the replica
  expect((await onKwok.status())!.nodes.find((n) => n.name === replica.name)!.master).toBe(master.name);

  since = new Date();
  await annotateLayout({ [REDIS_PAUSED_ANNOTATION]: null });
  const healed = await statusWhere('the layout as planned again', since, (s: any) => s.healthy && s.paused === false);
  expect(healed.nodes.find((n) => n.name === replica.name)!.master).toBe(layout.shards[replica.shard].master);
  await waitFor('the alert to clear', async () => {
    const alerts = await shardAlerts();
    return { done: alerts.length === 0, state: JSON.stringify(alerts) };
  }, { timeoutMs: 60_000 });
});
