/**
 * `cdk8s-zones check --kubeconfig`: the inventory is the real cluster's nodes (zones from their labels,
 * taints, allocatable), read through the test cluster's admin kubeconfig (client certificate, CA) over https.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ZONE_KEY } from './nodes';
import { testCluster } from './scheduling';
import { main } from '../../../src/cli/main';

const { client, info } = testCluster();
afterAll(() => client.close());

test('the nodes of the cluster become the inventory: every zone of the cluster, and the check runs on them', async () => {
  const nodes = await client.list<any>('v1', 'Node');
  const labelled = nodes
    .map((n) => n.metadata.labels?.[ZONE_KEY])
    .filter((z): z is string => typeof z === 'string');
  const zones = [...new Set(labelled)].sort();
  expect(zones.length).toBeGreaterThanOrEqual(3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-kubeconfig-'));
  const manifest = path.join(dir, 'web.json');
  const labels = { app: 'web' };
  fs.writeFileSync(manifest, JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: zones.length * 2,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1m' } } }],
          topologySpreadConstraints: [{
            topologyKey: ZONE_KEY,
            maxSkew: 1,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: labels },
          }],
        },
      },
    },
  }));
  let out = '';
  let err = '';
  const code = await main(['check', '--kubeconfig', info.kubeconfig, '--format', 'json', manifest], {
    stdin: process.stdin, stdout: (s) => { out += s; }, stderr: (s) => { err += s; },
  });
  fs.rmSync(dir, { recursive: true, force: true });
  expect(err).toBe('');
  const report = JSON.parse(out);
  expect(report.zones).toEqual(zones);
  expect(report.workloads[0].perZone[zones[0]].worstCase).toBeGreaterThan(0);
  expect(code).toBe(report.workloads[0].zoneLoss.every((l: any) => l.survives) ? 0 : 1);
});

test('a kubeconfig that names an exec plugin is refused with the file and the user (exit 2)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-kubeconfig-'));
  const file = path.join(dir, 'config');
  const config = JSON.parse(fs.readFileSync(info.kubeconfig, 'utf8'));
  for (const u of config.users) u.user.exec = { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws' };
  fs.writeFileSync(file, JSON.stringify(config));
  let err = '';
  const code = await main(['check', '--kubeconfig', file, '-'], {
    stdin: process.stdin,
    stdout: () => undefined,
    stderr: (s) => { err += s; },
  });
  fs.rmSync(dir, { recursive: true, force: true });
  expect(code).toBe(2);
  expect(err).toContain(`--kubeconfig ${file}: kubeconfig ${file}: user`);
  expect(err).toContain('runs an exec credential plugin, which is not supported');
});
