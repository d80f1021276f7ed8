/**
 * The real Loki accepts the direct output's configuration for every component it runs, and reads from it
 * what the construct means: zone awareness, the zone from the environment or the flag, the replication
 * factor (after Loki copied common.replication_factor onto the ingesters' ring).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import { build } from '../../../examples/loki-direct-3-zones/main';
import { LokiComponent, LokiOutput, ZoneAwareLokiStack, ZoneController, ZoneSource, ZoneTopology } from '../../../src';
import { programPath } from '../programs';

const app = new App();
build(app);
const manifests = app.charts.flatMap((c) => Testing.synth(c));
const config = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'logs-config').data['config.yaml'];
const workloads = manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet')
  .filter((w) => (w.spec.template.spec.containers[0].args ?? []).some((a: string) => a.startsWith('-target=')));

/** Runs the Loki binary with a workload's arguments (its config file swapped for a local copy). */
function loki(workload: any, extra: string[], env: { [name: string]: string } = {}, text = config): { status: number | null; output: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loki-config-'));
  try {
    const file = path.join(dir, 'config.yaml');
    fs.writeFileSync(file, text);
    const args = workload.spec.template.spec.containers[0].args.map((a: string) => (a.startsWith('-config.file=') ? `-config.file=${file}` : a));
    const res = spawnSync(programPath('loki'), [...args, ...extra], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
    return { status: res.status, output: `${res.stdout}${res.stderr}` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('every component of the example is there', () => {
  expect(workloads.map((w) => w.spec.template.spec.containers[0].args.find((a: string) => a.startsWith('-target=')).slice(8)).sort()).toEqual([
    LokiComponent.COMPACTOR, LokiComponent.DISTRIBUTOR, LokiComponent.INDEX_GATEWAY,
    LokiComponent.INGESTER, LokiComponent.INGESTER, LokiComponent.INGESTER, LokiComponent.QUERIER, LokiComponent.QUERY_FRONTEND,
  ].sort());
});

test.each(workloads.map((w) => [w.metadata.name, w]))('%s: Loki verifies its configuration', (_, workload) => {
  const res = loki(workload, ['-verify-config']);
  expect({ status: res.status, output: res.status === 0 ? '' : res.output }).toEqual({ status: 0, output: '' });
});

test('an ingester of the per-zone StatefulSets: zone from its flag, zone awareness on, replication factor 3 on its ring', () => {
  const ingester = workloads.find((w) => w.metadata.name === 'logs-ingester-zone-b');
  const res = loki(ingester, ['-verify-config', '-print-config-stderr']);
  expect(res.status).toBe(0);
  const lifecycler = res.output.slice(res.output.indexOf('\ningester:'));
  expect(lifecycler).toMatch(/lifecycler:\n\s+ring:[\s\S]*?replication_factor: 3/);
  expect(lifecycler).toMatch(/zone_awareness_enabled: true/);
  expect(lifecycler).toMatch(/availability_zone: zone-b/);
});

test.each([
  ['pod topology labels', () => ZoneSource.podTopologyLabels()],
  ['controller', (chart: Chart) => ZoneSource.controller(new ZoneController(chart, 'zones'))],
])('an ingester told its zone in the environment (%s): Loki expands it', (_, zoneSource) => {
  const chart = new Chart(Testing.app(), 'env', { disableResourceNameHashes: true });
  new ZoneAwareLokiStack(chart, 'loki', {
    name: 'logs',
    output: LokiOutput.DIRECT,
    topology: new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] }),
    zoneSource: zoneSource(chart),
    s3: { bucket: 'logs', endpoint: 'minio:9000' },
  });
  const objects = Testing.synth(chart);
  const ingester = objects.find((o) => o.kind === 'StatefulSet');
  const own = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'logs-config').data['config.yaml'];
  const zoneEnv = ingester.spec.template.spec.containers[0].env.find((e: any) => e.valueFrom?.fieldRef);
  const res = loki(ingester, ['-verify-config', '-print-config-stderr'], { [zoneEnv.name]: 'zone-from-env' }, own);
  expect(res.status).toBe(0);
  expect(res.output.slice(res.output.indexOf('\ningester:'))).toMatch(/availability_zone: zone-from-env/);
});

test('the check can fail: a misspelt field is refused', () => {
  const res = loki(workloads[0], ['-verify-config'], {}, config.replace('zone_awareness_enabled', 'zone_awareness_enabeld'));
  expect(res.status).toBe(1);
  expect(res.output).toMatch(/field zone_awareness_enabeld not found/);
});
