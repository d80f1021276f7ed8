/**
 * The controller's zone alert rules, held to the real promtool (Debian's Prometheus 2.42, the package the tier's
 * Prometheus comes from): `promtool check rules` accepts the rule file the standalone output mounts, and
 * `promtool test rules` plays series through every rule: each fires when it must, with its severity, its summary
 * naming the zone and its runbook, and stays silent when it must (a replica that no longer leads, a shift far from
 * its expiry, an update that moves or is done, a reconciler that stopped failing, a workload Ready nowhere or still
 * Ready in the zone, a zone under a shift).
 */
import { Promtool, promtoolOver } from './promtool';
import { controllerAlertGroup } from '../../../src/monitoring/controller-rules';

const LEADER = 'cdk8s_zones_leader{instance="c1:8080"}';
const FORMER = 'cdk8s_zones_leader{instance="c2:8080"}';

/** The pods and Ready pods series of web's Deployment `name` in `zone`, as replica `instance` shows them. */
function workloadZone(instance: string, name: string, zone: string, pods: string, ready: string): object[] {
  const labels = `instance="${instance}",namespace="web",workload="Deployment/${name}",zone="${zone}"`;
  return [
    { series: `cdk8s_zones_workload_zone_pods{${labels}}`, values: pods },
    { series: `cdk8s_zones_workload_zone_ready_pods{${labels}}`, values: ready },
  ];
}

let promtool: Promtool;
beforeAll(() => {
  promtool = promtoolOver(controllerAlertGroup());
});
afterAll(() => promtool.close());

test('promtool check rules accepts the controller\'s rules', () => {
  const checked = promtool.run('check', 'rules', 'rules.yml');
  expect(checked).toMatchObject({ code: 0 });
  expect(checked.output).toContain(`SUCCESS: ${controllerAlertGroup().rules.length} rules found`);
});

test('promtool test rules: each rule fires when it must and only then', () => {
  const shiftDescription = 'New pods are kept out of zone zone-a (its nodes are tainted, its pods held out of their Services)'
    + ' until the shift expires or is cancelled.';
  const shift = { instance: 'c1:8080', shift: 'drain-a', zone: 'zone-a', lost: 'false' };
  const update = { instance: 'c1:8080', namespace: 'web', name: 'app' };
  const tests = [
    {
      // a shift until 02:00 (7200 s): active throughout; within the hour from 01:00 on. The former leader's stale
      // series of a shift of zone-b never alerts.
      interval: '1m',
      input_series: [
        { series: LEADER, values: '1x120' },
        { series: FORMER, values: '0x120' },
        { series: 'cdk8s_zones_zone_shift_expiry_timestamp_seconds{instance="c1:8080",shift="drain-a",zone="zone-a",lost="false"}', values: '7200x110' },
        { series: 'cdk8s_zones_zone_shift_expiry_timestamp_seconds{instance="c2:8080",shift="old",zone="zone-b",lost="false"}', values: '3000x110' },
      ],
      alert_rule_test: [
        {
          eval_time: '10m',
          alertname: 'ZoneShiftActive',
          exp_alerts: [promtool.alert('ZoneShiftActive', shift, 'Zone zone-a is out of service: ZoneShift drain-a holds until 1970-01-01 02:00:00 +0000 UTC', shiftDescription)],
        },
        { eval_time: '59m', alertname: 'ZoneShiftExpiringSoon', exp_alerts: [] },
        {
          eval_time: '70m',
          alertname: 'ZoneShiftExpiringSoon',
          exp_alerts: [promtool.alert('ZoneShiftExpiringSoon', shift, 'ZoneShift drain-a gives zone zone-a back to service within the hour (50m 0s)',
            'When it expires, new pods go to zone zone-a again. If the zone is still impaired, extend the shift; if it has'
            + ' recovered, let it expire or cancel it.')],
        },
      ],
    },
    {
      // an update rolling zone-b whose last progress was at 10m: stalled from 40m on; one Done since 0 never is
      interval: '1m',
      input_series: [
        { series: LEADER, values: '1x120' },
        { series: 'cdk8s_zones_zone_aware_update_last_progress_timestamp_seconds{instance="c1:8080",namespace="web",name="app",zone="zone-b"}', values: '0x10 600x100' },
        { series: 'cdk8s_zones_zone_aware_update_phase{instance="c1:8080",namespace="web",name="app",phase="Rolling"}', values: '1x120' },
        { series: 'cdk8s_zones_zone_aware_update_phase{instance="c1:8080",namespace="web",name="app",phase="Done"}', values: '0x120' },
        { series: 'cdk8s_zones_zone_aware_update_last_progress_timestamp_seconds{instance="c1:8080",namespace="web",name="done",zone=""}', values: '0x120' },
        { series: 'cdk8s_zones_zone_aware_update_phase{instance="c1:8080",namespace="web",name="done",phase="Done"}', values: '1x120' },
      ],
      alert_rule_test: [
        { eval_time: '39m', alertname: 'ZoneAwareUpdateStalled', exp_alerts: [] },
        {
          eval_time: '41m',
          alertname: 'ZoneAwareUpdateStalled',
          exp_alerts: [promtool.alert('ZoneAwareUpdateStalled', { ...update, zone: 'zone-b' },
            'ZoneAwareUpdate web/app has not progressed in zone zone-b for 30 minutes',
            'No pod has left the old revision for 31m 0s: the update waits on pods that do not become Ready, a ready check'
            + ' that fails, its pause condition, or the update it starts after.')],
        },
      ],
    },
    {
      // web/app's pods in zone-a stop being Ready at 10m while those in zone-b stay Ready: fires from 15m on. web/down
      // is Ready nowhere (the workload, not a zone); web/part keeps a Ready pod of two in zone-a; zone-c is held by a
      // shift from the start; the former leader's stale series of zone-b never alert.
      interval: '1m',
      input_series: [
        { series: LEADER, values: '1x60' },
        { series: FORMER, values: '0x60' },
        ...workloadZone('c1:8080', 'app', 'zone-a', '2x60', '2x9 0x50'),
        ...workloadZone('c1:8080', 'app', 'zone-b', '2x60', '2x60'),
        ...workloadZone('c1:8080', 'down', 'zone-a', '1x60', '0x60'),
        ...workloadZone('c1:8080', 'down', 'zone-b', '1x60', '0x60'),
        ...workloadZone('c1:8080', 'part', 'zone-a', '2x60', '1x60'),
        ...workloadZone('c1:8080', 'part', 'zone-b', '1x60', '1x60'),
        ...workloadZone('c1:8080', 'app', 'zone-c', '2x60', '0x60'),
        { series: 'cdk8s_zones_zone_shift_expiry_timestamp_seconds{instance="c1:8080",shift="drain-c",zone="zone-c",lost="false"}', values: '7200x60' },
        ...workloadZone('c2:8080', 'app', 'zone-b', '2x60', '0x60'),
        ...workloadZone('c2:8080', 'app', 'zone-a', '2x60', '2x60'),
      ],
      alert_rule_test: [
        { eval_time: '14m', alertname: 'ZonePodsNotReady', exp_alerts: [] },
        {
          eval_time: '16m',
          alertname: 'ZonePodsNotReady',
          exp_alerts: [promtool.alert('ZonePodsNotReady', { instance: 'c1:8080', namespace: 'web', workload: 'Deployment/app', zone: 'zone-a' },
            'Zone zone-a: no pod of web/Deployment/app is Ready, while it is Ready in other zones',
            'For 5 minutes, none of the pods of Deployment/app in zone zone-a has been Ready, while its pods in other zones'
            + ' are: the zone, not the workload, is the likely cause. More workloads alerting in the same zone make it a'
            + ' candidate for a ZoneShift of zone zone-a (runbooks/zone-impaired.md).')],
        },
      ],
    },
    {
      // the zone-shift reconciler fails once a minute for 40 minutes, then never again; the annotator never fails
      interval: '1m',
      input_series: [
        { series: LEADER, values: '1x90' },
        { series: 'cdk8s_zones_reconcile_errors_total{instance="c1:8080",reconciler="zone-shift"}', values: '0+1x40 40x50' },
        { series: 'cdk8s_zones_reconcile_errors_total{instance="c1:8080",reconciler="zone-annotator"}', values: '0x90' },
      ],
      alert_rule_test: [
        { eval_time: '15m', alertname: 'ZoneControllerReconcileErrors', exp_alerts: [] },
        {
          eval_time: '30m',
          alertname: 'ZoneControllerReconcileErrors',
          exp_alerts: [promtool.alert('ZoneControllerReconcileErrors', { instance: 'c1:8080', reconciler: 'zone-shift' },
            'The zone controller\'s zone-shift reconciler keeps failing',
            'Its reconciles have failed (and been retried) for 15 minutes: what it does for the zones (shifts, updates,'
            + ' Redis) is not done. Its log says why.')],
        },
        { eval_time: '80m', alertname: 'ZoneControllerReconcileErrors', exp_alerts: [] },
      ],
    },
  ];
  promtool.expectTestsPass(tests);
});
