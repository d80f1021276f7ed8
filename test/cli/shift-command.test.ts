/** `cdk8s-zones shift start|status|cancel` through `main()`, against an in-memory API that plays the controller. */
import { runCli } from './memory-api';
import { ROLLOUT_API_VERSION } from '../../src/contract/rollout';
import { AUTOSHIFT_POLICY_LABEL, SHIFT_CAUSE_LABEL } from '../../src/contract/zone-autoshift';
import { KubeApiError } from '../../src/kubernetes/kube-api';
import { MemoryKubeApi } from '../memory-kube-api';

const SHIFTS = '/apis/cdk8s-zones.dev/v1alpha1/zoneshifts';

function cluster(): MemoryKubeApi {
  const api = new MemoryKubeApi();
  for (const [name, zone] of [['n1', 'zone-a'], ['n2', 'zone-b'], ['n3', 'zone-c']]) {
    api.put('/api/v1/nodes', { kind: 'Node', metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } } });
  }
  return api;
}

const run = (api: MemoryKubeApi, ...argv: string[]) => runCli(api, argv);

/**
 * The controller: after `delay` calls, every shift is Active with what it changed; a deleted one goes after its undo.
 */
function playController(api: MemoryKubeApi, delay: number, answer: 'Active' | 'Invalid' = 'Active'): void {
  let calls = 0;
  api.onCall = () => {
    if (++calls < delay) return;
    for (const [path, shift] of api.objects) {
      if (!path.startsWith(`${SHIFTS}/`)) continue;
      if (shift.metadata.deletionTimestamp) {api.objects.delete(path);} else if (!shift.status) {
        shift.metadata.finalizers = ['cdk8s-zones.dev/undo-zone-shift'];
        shift.status = answer === 'Active'
          ? { phase: 'Active', message: 'zone zone-a out of service', changed: [{ kind: 'Node', name: 'n1', change: 'taint cdk8s-zones.dev/zone-shift=zone-a:NoSchedule' }] }
          : { phase: 'Invalid', message: 'spec.zone is wrong', changed: [] };
      }
    }
  };
}

describe('shift start', () => {
  test('writes the ZoneShift the flags describe and waits for the controller to take it up (exit 0, what it changed)', async () => {
    const api = cluster();
    playController(api, 4);
    const r = await run(api, 'shift', 'start', '--zone', 'zone-a', '--expires-in', '2h', '--namespaces', 'shop,pay', '--reason', 'packet loss', '--name', 's1');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const shift = api.objects.get(`${SHIFTS}/s1`);
    expect(shift.spec).toEqual({ zone: 'zone-a', expiresAt: '2026-11-27T12:00:00.000Z', namespaces: ['shop', 'pay'], reason: 'packet loss' });
    expect(shift).toMatchObject({ apiVersion: 'cdk8s-zones.dev/v1alpha1', kind: 'ZoneShift' });
    expect(r.stdout).toContain('zoneshift/s1: zone zone-a, namespaces shop, pay, Active, expires 2026-11-27T12:00:00.000Z; reason: packet loss');
    expect(r.stdout).toContain('node/n1: taint cdk8s-zones.dev/zone-shift=zone-a:NoSchedule');
  });

  test('says before the shift starts which pods the fail-safe keeps in service: the last of their workload that can serve', async () => {
    const api = cluster();
    playController(api, 4);
    const pod = (name: string, nodeName: string, owner: string, gated = true) => ({
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'shop',
        labels: { 'cdk8s-zones.dev/zone-annotation': 'enabled', 'app': owner },
        ownerReferences: [{ kind: 'StatefulSet', name: owner, controller: true }],
      },
      spec: { nodeName, readinessGates: gated ? [{ conditionType: 'cdk8s-zones.dev/zone-in-service' }] : [] },
      status: { phase: 'Running', conditions: [{ type: 'ContainersReady', status: 'True' }] },
    });
    // pinned: both in zone-a; spread: one in zone-a, one in zone-b
    for (const p of [pod('pinned-0', 'n1', 'pinned'), pod('pinned-1', 'n1', 'pinned'), pod('spread-0', 'n1', 'spread'), pod('spread-1', 'n2', 'spread')]) {
      api.put('/api/v1/namespaces/shop/pods', p);
    }
    const r = await run(api, 'shift', 'start', '--zone', 'zone-a', '--expires-in', '1h', '--name', 's1');
    expect(r.code).toBe(0);
    const kept = r.stdout.split('\n').filter((l) => l.includes('(the fail-safe)'));
    expect(kept).toEqual([
      '  pod/shop/pinned-0 stays in service (the fail-safe): it is one of the last pods that can serve StatefulSet/pinned in shop',
      '  pod/shop/pinned-1 stays in service (the fail-safe): it is one of the last pods that can serve StatefulSet/pinned in shop',
    ]);
    expect(api.calls).toContain('LIST /api/v1/pods?labelSelector=cdk8s-zones.dev/zone-annotation=enabled');
  });

  test('names the shift after its zone and time unless told', async () => {
    const api = cluster();
    playController(api, 1);
    expect((await run(api, 'shift', 'start', '--zone', 'zone-b', '--expires-in', '30m')).code).toBe(0);
    expect([...api.objects.keys()].filter((k) => k.startsWith(SHIFTS))).toEqual([`${SHIFTS}/zone-b-20261127-100000`]);
  });

  test('exit 1 when no controller answers within --timeout, saying how to cancel; and when the controller finds it invalid', async () => {
    const api = cluster();
    const r = await run(api, 'shift', 'start', '--zone', 'zone-a', '--expires-in', '1h', '--name', 's1', '--timeout', '5s');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('zoneshift/s1: no controller took it up within 5 s: does a ZoneController run with zoneShift?');
    expect(r.stdout).toContain('cdk8s-zones shift cancel s1');
    const invalid = cluster();
    playController(invalid, 1, 'Invalid');
    const i = await run(invalid, 'shift', 'start', '--zone', 'zone-a', '--expires-in', '1h', '--name', 's1');
    expect(i.code).toBe(1);
    expect(i.stdout).toContain('Invalid');
  });

  test.each([
    [[], 'shift start needs --zone'],
    [['--zone', 'zone-a'], 'shift start needs --expires-in (at most 72h)'],
    [['--zone', 'zone-a', '--expires-in', '73h'], '--expires-in=73h must be at most 72h'],
    [['--zone', 'zone-a', '--expires-in', '2d'], '--expires-in="2d" must be a duration above zero'],
    [['--zone', 'zone-a', '--expires-in', '0s'], '--expires-in="0s" must be a duration above zero'],
    [['--zone', 'zone-a', '--expires-in', '1h', '--namespaces', 'Shop'], '--namespaces: "Shop"'],
    [['--zone', 'zone-a', '--expires-in', '1h', '--namespaces', 'a,,b'], '--namespaces="a,,b" holds an empty item'],
    [['--zone', 'zone a', '--expires-in', '1h'], '--zone "zone a" must be a zone'],
    [['--zone', 'zone-x', '--expires-in', '1h'], '--zone "zone-x": no node of the cluster is in that zone (its zones: zone-a, zone-b, zone-c)'],
    [['--zone', 'zone-a', '--zone', 'zone-b', '--expires-in', '1h'], '--zone is given twice'],
    [['--zone', 'zone-a', '--expires-in', '1h', '--force'], 'unknown flag "--force"'],
    [['zone-a'], 'shift start takes no argument ("zone-a")'],
  ])('bad input %j: exit 2, the rule, the usage, nothing written', async (flags, message) => {
    const api = cluster();
    const r = await run(api, 'shift', 'start', ...flags);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('Usage: cdk8s-zones shift start');
    expect(api.calls.filter((c) => !c.startsWith('LIST') && !c.startsWith('GET'))).toEqual([]);
  });

  test('an API error (access denied) is exit 2, could not run, with the API server\'s message', async () => {
    const api = cluster();
    api.create = async () => { throw new KubeApiError('POST', SHIFTS, 403, 'Forbidden', 'zoneshifts is forbidden', `POST ${SHIFTS}: HTTP 403 zoneshifts is forbidden`); };
    const r = await run(api, 'shift', 'start', '--zone', 'zone-a', '--expires-in', '1h');
    expect(r).toMatchObject({ code: 2, stderr: `cdk8s-zones shift: POST ${SHIFTS}: HTTP 403 zoneshifts is forbidden\n` });
  });
});

describe('shift status and cancel', () => {
  async function twoShifts(): Promise<MemoryKubeApi> {
    const api = cluster();
    playController(api, 1);
    await run(api, 'shift', 'start', '--zone', 'zone-a', '--expires-in', '1h', '--name', 'a1');
    await run(api, 'shift', 'start', '--zone', 'zone-b', '--expires-in', '1h', '--name', 'b1');
    return api;
  }

  test('status shows the autoshift: its zones and signals, the run in progress, the next practice run, the last runs', async () => {
    const api = cluster();
    api.put(SHIFTS, {
      kind: 'ZoneShift',
      metadata: { name: 'auto-1', labels: { [AUTOSHIFT_POLICY_LABEL]: 'zones', [SHIFT_CAUSE_LABEL]: 'autoshift' } },
      spec: { zone: 'zone-a', expiresAt: '2026-11-29T04:00:00.000Z' },
    });
    const active = { cause: 'autoshift', zone: 'zone-a', shift: 'auto-1', startedAt: '2026-11-29T01:00:00.000Z', reason: 'impaired for 21 s: 2 of 3 nodes not answering' };
    api.put(`/apis/${ROLLOUT_API_VERSION}/zoneautoshifts`, {
      kind: 'ZoneAutoshift',
      metadata: { name: 'zones' },
      spec: { dryRun: false },
      status: {
        phase: 'Shifted',
        message: 'autoshift of zone zone-a since 2026-11-29T01:00:00.000Z',
        zones: [
          { zone: 'zone-a', impaired: true, since: '2026-11-29T00:59:39.000Z', signals: ['2 of 3 nodes not answering (NotReady: n1, n2)'] },
          { zone: 'zone-b', impaired: false, since: '2026-11-28T00:00:00.000Z', signals: [] },
        ],
        active,
        nextPractice: { at: '2026-12-06T00:00:00.000Z', zone: 'zone-c' },
        history: [{
          cause: 'practice',
          zone: 'zone-b',
          startedAt: '2026-11-28T10:00:00.000Z',
          reason: 'practice run',
          endedAt: '2026-11-28T10:04:00.000Z',
          outcome: 'Failed',
          message: 'suffered while zone-b was out of service: Deployment/api in shop: 2 of 2 pods outside zone-b failing readiness',
        }],
      },
    });
    const text = (await run(api, 'shift', 'status')).stdout;
    expect(text).toContain('zoneshift/auto-1: zone zone-a, cluster-wide, started by zoneautoshift/zones (autoshift)');
    expect(text).toContain('zoneautoshift/zones: Shifted\n');
    expect(text).toContain('  zone zone-a: impaired since 2026-11-29T00:59:39.000Z: 2 of 3 nodes not answering (NotReady: n1, n2)\n');
    expect(text).toContain('  zone zone-b: healthy since 2026-11-28T00:00:00.000Z\n');
    expect(text).toContain('  now: autoshift of zone zone-a from 2026-11-29T01:00:00.000Z (in progress); started because impaired for 21 s');
    expect(text).toContain('  next practice run: zone zone-c at 2026-12-06T00:00:00.000Z\n');
    expect(text).toContain('  ended: practice of zone zone-b from 2026-11-28T10:00:00.000Z to 2026-11-28T10:04:00.000Z: Failed, ' +
      'suffered while zone-b was out of service: Deployment/api in shop: 2 of 2 pods outside zone-b failing readiness');
    const json = JSON.parse((await run(api, 'shift', 'status', '--format', 'json')).stdout);
    expect(json.autoshifts[0].status.active).toEqual(active);
    expect(json.shifts[0].labels).toEqual({ [AUTOSHIFT_POLICY_LABEL]: 'zones', [SHIFT_CAUSE_LABEL]: 'autoshift' });
  });

  test('status lists every shift (text and JSON), or those named or of a zone', async () => {
    const api = await twoShifts();
    const all = await run(api, 'shift', 'status');
    expect(all.stdout).toMatch(/zoneshift\/a1: zone zone-a, cluster-wide, Active[^\n]*\n[\s\S]*zoneshift\/b1: zone zone-b/);
    const json = JSON.parse((await run(api, 'shift', 'status', '--zone', 'zone-b', '--format', 'json')).stdout);
    expect(json.shifts.map((s: any) => [s.name, s.spec.zone, s.status.phase])).toEqual([['b1', 'zone-b', 'Active']]);
    expect(json.autoshifts).toEqual([]);
    expect((await run(api, 'shift', 'status', 'nope')).stderr).toContain('zoneshift/nope does not exist');
    expect((await run(cluster(), 'shift', 'status')).stdout).toBe('no zone shift\n');
  });

  test('cancel --zone deletes that zone\'s shifts only and waits until the controller has undone them', async () => {
    const api = await twoShifts();
    const r = await run(api, 'shift', 'cancel', '--zone', 'zone-a');
    expect(r).toMatchObject({ code: 0, stdout: 'zoneshift/a1 cancelled: what it changed is undone\n' });
    expect([...api.objects.keys()].filter((k) => k.startsWith(SHIFTS))).toEqual([`${SHIFTS}/b1`]);
  });

  test('cancel: exit 1 when the controller has not undone it within --timeout (its finalizer holds it)', async () => {
    const api = await twoShifts();
    api.onCall = () => undefined; // the controller is gone
    const r = await run(api, 'shift', 'cancel', 'b1', '--timeout', '3s');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('zoneshift/b1: deleted, but the controller has not undone it within 3 s');
    expect((await run(api, 'shift', 'cancel')).stderr).toContain('shift cancel needs the shifts: their names, or --zone');
  });

  test('--help prints the usage and the guide (exit 0); an unknown subcommand is bad input', async () => {
    const help = await run(cluster(), 'shift', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('cdk8s-zones shift cancel (NAME ... | --zone ZONE)');
    expect(help.stdout).toContain('runbooks/zone-impaired.md');
    expect((await run(cluster(), 'shift', 'stop')).stderr).toContain('shift "stop" is not a subcommand: start, status or cancel');
  });
});
