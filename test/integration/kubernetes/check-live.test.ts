/**
 * `cdk8s-zones check --live` on the real API server, scheduler and controller manager, as a user with exactly the
 * runbook's ClusterRole (CHECK_LIVE_RULES): a StatefulSet placed in zone-a with its volumes (the fake zonal
 * provisioner pins each to its node's zone), then given a hard zone spread it never acted on (OnDelete: its pods
 * stay). The manifest alone survives every zone; what runs does not survive zone-a, and a drill of zone-a agrees.
 * Recreated after the drill, the pods meet both their spread and their zone-a volumes: one runs, two stay Pending,
 * as the check's worst case said.
 */
import { cliUserKubeconfig, runCliAs } from './cli-user';
import { deleteNamespace, restrictedNamespace } from './examples';
import { ZONE_KEY } from './nodes';
import { livePods, podsByZone, RESTRICTED_PAUSE_POD, testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';
import { analyzeManifests } from '../../../src/check/analyze';
import { ZoneInventory } from '../../../src/check/inventory';
import { CHECK_LIVE_RULES, DRILL_RULES } from '../../../src/cli/cli-rbac';
import { DrillResult } from '../../../src/drill/drill-run';

const { client, info } = testCluster();
const ns = uniqueName('check-live');
const labels = { app: 'db' };
let checkUser = '';
let drillUser = '';

/** The StatefulSet `db`: 3 pods with a volume each, first pinned to zone-a, then spread hard over the zones. */
function db(placement: 'zone-a' | 'spread'): any {
  const pinned = { nodeSelector: { [ZONE_KEY]: 'zone-a' } };
  const hard = { topologyKey: ZONE_KEY, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels } };
  const spread = { topologySpreadConstraints: [hard] };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: ns },
    spec: {
      replicas: 3,
      serviceName: 'db',
      podManagementPolicy: 'Parallel',
      // a spread added later acts only on pods scheduled later: OnDelete keeps these where they are
      updateStrategy: { type: 'OnDelete' },
      selector: { matchLabels: labels },
      volumeClaimTemplates: [{
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      }],
      template: { metadata: { labels }, spec: { ...RESTRICTED_PAUSE_POD, ...(placement === 'zone-a' ? pinned : spread) } },
    },
  };
}

beforeAll(async () => {
  checkUser = await cliUserKubeconfig(client, info, 'cdk8s-zones-check-live', CHECK_LIVE_RULES);
  drillUser = await cliUserKubeconfig(client, info, 'cdk8s-zones-drill', DRILL_RULES);
  await restrictedNamespace(client, ns);
  await client.apply(db('zone-a'));
  await waitFor('db\'s 3 pods Running in zone-a with their volumes bound', async () => {
    const pods = (await livePods(client, ns, 'app=db')).filter((p) => p.status?.phase === 'Running');
    const claims = await client.list<any>('v1', 'PersistentVolumeClaim', { namespace: ns });
    const bound = claims.filter((c) => c.status?.phase === 'Bound').length;
    return { done: pods.length === 3 && bound === 3, state: `${pods.length} running, ${bound} claims bound` };
  }, { timeoutMs: 120_000 });
  await client.apply(db('spread'));
}, 300_000);

afterAll(async () => {
  await deleteNamespace(client, ns);
  client.close();
}, 120_000);

test('the manifest alone survives every zone; what runs (3 pods and their volumes in zone-a) does not survive zone-a', async () => {
  expect(podsByZone(info, await livePods(client, ns, 'app=db'))).toEqual({ 'zone-a': 3, 'zone-b': 0, 'zone-c': 0 });
  const offline = analyzeManifests([db('spread')], new ZoneInventory({ zones: [...info.zones], nodesPerZone: 3 }));
  expect(offline.workloads[0].survives).toEqual({ 'zone-a': true, 'zone-b': true, 'zone-c': true });

  const live = await runCliAs(checkUser, 'check', '--live', '--namespace', ns, '--format', 'json');
  expect(live.stderr).toBe('');
  expect(live.code).toBe(1);
  const report = JSON.parse(live.stdout);
  const row = report.workloads.find((w: any) => w.kind === 'StatefulSet' && w.name === 'db');
  expect(row.survives).toEqual({ 'zone-a': false, 'zone-b': true, 'zone-c': true });
  // 3 run there now; placed again, the spread would let only one back, its volumes being all in zone-a
  expect(row.perZone['zone-a']).toEqual({ guaranteed: 1, worstCase: 3 });
  expect(row.pendingWorstCase).toBe(2);
  // its replacements wait for their zone-a volumes
  expect(row.zoneLoss.find((l: any) => l.zone === 'zone-a')).toMatchObject({ survivors: 0, replacementsPending: 3 });
  // everything the user may read was read
  expect(report.findings.filter((f: any) => f.rule === 'live-list-denied')).toEqual([]);
}, 120_000);

test('a drill of zone-a agrees: the plan predicts the loss, and the observation matches it', async () => {
  const flags = ['--mode', 'outage', '--yes', '--format', 'json', '--settle', '5s', '--timeout', '2m'];
  const run = await runCliAs(drillUser, 'drill', '--zone', 'zone-a', ...flags);
  const result: DrillResult = JSON.parse(run.stdout);
  const verdict = result.verdicts.find((v) => v.namespace === ns && v.name === 'db')!;
  expect(verdict.predicted).toMatchObject({ survives: false, survivors: 0, replacementsPending: 3 });
  expect(verdict.contradictions).toEqual([]);
  expect(verdict.broke).toBe(true);
  expect(verdict.observed.minReady).toBe(0);
  expect(run.code).toBe(1);
}, 420_000);

test('once zone-a is back, the recreated pods meet their spread and their volumes: one runs, two stay Pending, as the check said', async () => {
  await waitFor('db back in zone-a, one pod running and two Pending', async () => {
    const pods = await livePods(client, ns, 'app=db');
    const running = pods.filter((p) => p.status?.phase === 'Running').length;
    const pending = pods.filter((p) => p.status?.phase === 'Pending').length;
    return { done: running === 1 && pending === 2, state: `${running} running, ${pending} pending` };
  }, { timeoutMs: 120_000 });
  const live = await runCliAs(checkUser, 'check', '--live', '--namespace', ns, '--format', 'json');
  const row = JSON.parse(live.stdout).workloads.find((w: any) => w.kind === 'StatefulSet' && w.name === 'db');
  // now and the worst case agree: one in zone-a, two Pending
  expect(row.perZone['zone-a']).toEqual({ guaranteed: 1, worstCase: 1 });
  expect(row.pendingWorstCase).toBe(2);
}, 180_000);
