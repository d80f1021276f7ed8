/**
 * ZoneController's `autoshift`: the ZoneAutoshift it writes (the spec, its defaults, its CRD validated by the
 * schema), the reconciler and its flag, the rights it grants (a Role in kube-node-lease, no wildcard), and bad input
 * refused at synth time with the option, its value and the rule, for TypeScript and JavaScript callers alike.
 */
import { Chart, Duration, Testing } from 'cdk8s';
import { ZoneController, ZoneControllerProps } from '../../src';
import { zoneAutoshiftProblem, problemText } from '../../src/contract/zone-autoshift';

function synth(props: ZoneControllerProps) {
  const platform = new Chart(Testing.app(), 'platform');
  new ZoneController(platform, 'controller', props);
  return Testing.synth(platform);
}

describe('ZoneController with autoshift', () => {
  test('writes the ZoneAutoshift named as the controller, with every default spelled out, and its CRD', () => {
    const objects = synth({ zoneShift: true, autoshift: {} });
    const policy = objects.find((o) => o.kind === 'ZoneAutoshift')!;
    expect(policy.metadata.name).toBe('cdk8s-zones-controller');
    expect(policy.metadata.namespace).toBeUndefined();
    expect(policy.spec).toEqual({
      dryRun: false,
      nodes: { unhealthyShare: 0.5, leaseStaleSeconds: 40 },
      pods: { failingShare: 0.5, minPods: 2, startupSeconds: 300 },
      impairedForSeconds: 20,
      recoveredForSeconds: 300,
      minDurationSeconds: 600,
      maxDurationSeconds: 10800,
    });
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name))
      .toEqual(['zoneshifts.cdk8s-zones.dev', 'zoneautoshifts.cdk8s-zones.dev']);
    const args = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args.join(' ');
    expect(args).toMatch(/--reconcilers zone-annotator,zone-shift,zone-autoshift\b/);
    expect(args).toContain('--autoshift-policy=cdk8s-zones-controller');
  });

  test('every option reaches the spec', () => {
    const objects = synth({
      zoneShift: true,
      autoshift: {
        dryRun: true,
        unhealthyNodeShare: 1,
        nodeLeaseStaleAfter: Duration.minutes(1),
        podSignal: false,
        prometheusUrl: 'http://prometheus.monitoring:9090',
        prometheusQuery: 'sum by (zone) (rate(errors[1m]))',
        prometheusThreshold: 5,
        prometheusZoneLabel: 'az',
        impairedFor: Duration.minutes(1),
        recoveredFor: Duration.minutes(10),
        minDuration: Duration.minutes(15),
        maxDuration: Duration.hours(6),
        blockedWindows: ['Fri:22:00-Mon:06:00'],
        blockedDates: ['2026-12-24'],
        practiceEvery: Duration.days(7),
        practiceDuration: Duration.minutes(30),
        practiceOutcomeQuery: 'sum(rate(errors[1m]))',
        practiceOutcomeThreshold: 1,
      },
    });
    expect(objects.find((o) => o.kind === 'ZoneAutoshift')!.spec).toEqual({
      dryRun: true,
      nodes: { unhealthyShare: 1, leaseStaleSeconds: 60 },
      prometheus: { url: 'http://prometheus.monitoring:9090', query: 'sum by (zone) (rate(errors[1m]))', threshold: 5, zoneLabel: 'az' },
      impairedForSeconds: 60,
      recoveredForSeconds: 600,
      minDurationSeconds: 900,
      maxDurationSeconds: 21600,
      blockedWindows: ['Fri:22:00-Mon:06:00'],
      blockedDates: ['2026-12-24'],
      practiceRuns: { everySeconds: 604800, durationSeconds: 1800, outcomeQuery: 'sum(rate(errors[1m]))', outcomeThreshold: 1 },
    });
  });

  test('lostAfter: with the lost-zone recovery, the spec says when an autoshift declares its zone lost', () => {
    const objects = synth({
      zoneShift: true, lostZoneRecovery: true, workloadNamespaces: ['db'], autoshift: { lostAfter: Duration.minutes(30) },
    });
    expect(objects.find((o) => o.kind === 'ZoneAutoshift')!.spec.lostAfterSeconds).toBe(1800);
    expect(zoneAutoshiftProblem(objects.find((o) => o.kind === 'ZoneAutoshift')!.spec)).toBeUndefined();
  });

  test('grants: its policy and the shifts cluster-wide, the nodes\' Leases only in kube-node-lease, its Events only in default', () => {
    const objects = synth({ zoneShift: true, autoshift: {} });
    const clusterRules = objects.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules);
    const verbsOn = (resource: string) => [...new Set(clusterRules
      .filter((r: any) => r.resources.includes(resource))
      .flatMap((r: any) => r.verbs))].sort();
    expect(verbsOn('zoneautoshifts')).toEqual(['get', 'list', 'watch']);
    expect(verbsOn('zoneautoshifts/status')).toEqual(['get', 'patch', 'update']);
    expect(verbsOn('zoneshifts')).toEqual(['create', 'delete', 'get', 'list', 'patch', 'watch']);
    expect(verbsOn('leases')).toEqual([]);
    const leaseRole = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'kube-node-lease')!;
    expect(leaseRole.rules).toEqual([{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list', 'watch'] }]);
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.namespace === 'kube-node-lease')!;
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'cdk8s-zones-controller', namespace: 'cdk8s-zones-system' }]);
    const events = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'default')!;
    expect(events.rules).toEqual([{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }]);
    const all = objects.filter((o) => /Role$/.test(o.kind)).flatMap((o) => o.rules);
    expect(all.flatMap((r: any) => [...r.verbs, ...r.resources, ...r.apiGroups])).not.toContain('*');
    expect(JSON.stringify(synth({ zoneShift: true }))).not.toMatch(/zoneautoshift|kube-node-lease/);
  });

  test.each<[string, any, string]>([
    ['without the zonal shift', { autoshift: {} }, 'autoshift={} needs zoneShift: true (the autoshift starts ZoneShifts, and the zonal shift acts on them)'],
    ['a share above 1', { unhealthyNodeShare: 1.5 }, 'autoshift.unhealthyNodeShare=1.5 must be a share above 0 and at most 1'],
    ['a share of 0', { failingPodShare: 0 }, 'autoshift.failingPodShare=0 must be a share above 0 and at most 1'],
    ['a Lease staleness under two renewals', { nodeLeaseStaleAfter: Duration.seconds(10) }, 'autoshift.nodeLeaseStaleAfter="10s" must be a whole number of seconds, at least 20'],
    ['a fraction of a second', { impairedFor: Duration.millis(1500) }, 'autoshift.impairedFor="1500ms" must be a whole number of seconds'],
    ['a minimum not below the maximum', { minDuration: Duration.hours(3) }, 'autoshift.minDuration="10800s" must be less than maxDuration (10800): a shift could never end as both say'],
    ['a maximum past 72 hours', { maxDuration: Duration.days(4) }, 'autoshift.maxDuration="345600s" must be a whole number of seconds from 1 to 259200'],
    ['overlapping blocked windows', { blockedWindows: ['Mon:09:00-Mon:17:00', 'Mon:12:00-Mon:13:00'] }, 'autoshift.blockedWindows[1]="Mon:12:00-Mon:13:00" overlaps "Mon:09:00-Mon:17:00"'],
    ['a date that does not exist', { blockedDates: ['2026-13-01'] }, 'autoshift.blockedDates[0]="2026-13-01" must be a UTC date'],
    ['a schedule shorter than its runs', { practiceEvery: Duration.minutes(30), practiceDuration: Duration.hours(1) },
      'autoshift.practiceEvery="1800s" must be a whole number of seconds greater than practiceDuration (3600)'],
    ['a schedule without its runs\' duration', { practiceEvery: Duration.days(7) }, 'autoshift.practiceDuration=undefined must be a whole number'],
    ['a threshold without its query', { prometheusUrl: 'http://p:9090', prometheusThreshold: 1 }, 'autoshift.prometheusThreshold=1 goes with prometheusQuery'],
    ['a query without a server', { prometheusQuery: 'up', prometheusThreshold: 1 }, 'autoshift.prometheusUrl=undefined must be an http:// or https:// URL'],
    ['an outcome query without its threshold',
      { practiceEvery: Duration.days(7), practiceDuration: Duration.hours(1), practiceOutcomeQuery: 'up' },
      'autoshift.practiceOutcomeThreshold=undefined goes with practiceOutcomeQuery'],
    ['an outcome query without a server', {
      practiceEvery: Duration.days(7),
      practiceDuration: Duration.hours(1),
      practiceOutcomeQuery: 'up',
      practiceOutcomeThreshold: 1,
    }, 'autoshift.practiceOutcomeQuery="up" needs prometheusUrl'],
    ['a lost declaration without the lost-zone recovery', { zoneShift: true, autoshift: { lostAfter: Duration.minutes(30) } },
      'autoshift.lostAfter="1800s" needs lostZoneRecovery: true (a zone declared lost is what the lost-zone recovery acts on)'],
    ['a lost declaration within minutes', { lostAfter: Duration.minutes(2) },
      'autoshift.lostAfter="120s" must be a whole number of seconds from 300 to less than maxDuration (10800)'],
    ['a lost declaration past the shift\'s end', { lostAfter: Duration.hours(3) },
      'autoshift.lostAfter="10800s" must be a whole number of seconds from 300 to less than maxDuration (10800)'],
    ['a URL that is none', { prometheusUrl: 'prometheus:9090' }, 'autoshift.prometheusUrl="prometheus:9090" must be an http:// or https:// URL'],
    ['a string where a number goes (JavaScript)', { unhealthyNodeShare: '0.5' }, 'autoshift.unhealthyNodeShare="0.5"'],
    ['seconds where a Duration goes (JavaScript)', { impairedFor: 20 }, 'autoshift.impairedFor=20'],
    ['a misspelt option (JavaScript)', { dryrun: true }, 'dryrun'],
  ])('refuses %s, naming the option, its value and the rule', (_, options, message) => {
    const props = options.autoshift ? options : { zoneShift: true, autoshift: options };
    let error: Error | undefined;
    try { synth(props); } catch (e) { error = e as Error; }
    expect(error?.message).toContain("ZoneController 'platform/controller'");
    expect(error?.message).toContain(message);
  });
});

describe('the spec\'s rules, as the controller applies them to a ZoneAutoshift edited by hand', () => {
  const spec = () => ({
    dryRun: false,
    nodes: { unhealthyShare: 0.5, leaseStaleSeconds: 40 },
    impairedForSeconds: 20,
    recoveredForSeconds: 300,
    minDurationSeconds: 600,
    maxDurationSeconds: 10800,
  } as any);
  test.each<[string, (s: any) => void, string | undefined]>([
    ['the synthesized defaults', () => undefined, undefined],
    ['no dryRun', (s) => { delete s.dryRun; }, 'dryRun unset must be true or false'],
    ['no nodes', (s) => { delete s.nodes; }, 'nodes.unhealthyShare unset must be a share above 0 and at most 1'],
    ['pods with minPods 0', (s) => { s.pods = { failingShare: 0.5, minPods: 0, startupSeconds: 0 }; }, 'pods.minPods 0 must be a whole number of at least 1'],
    ['an outcome threshold alone', (s) => { s.practiceRuns = { everySeconds: 100, durationSeconds: 10, outcomeThreshold: 1 }; }, 'practiceRuns.outcomeThreshold 1 goes with practiceRuns.outcomeQuery'],
    ['a negative duration', (s) => { s.recoveredForSeconds = -1; }, 'recoveredForSeconds -1 must be a whole number of seconds'],
  ])('%s', (_, change, expected) => {
    const s = spec();
    change(s);
    const problem = zoneAutoshiftProblem(s);
    const text = problem && problemText(problem);
    expect(text).toEqual(expected === undefined ? undefined : expect.stringContaining(expected));
  });
});
