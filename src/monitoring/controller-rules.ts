/**
 * The zone alert rules over the runtime controller's own metrics (src/contract/metrics.ts): they come with a
 * monitored ZoneController. Only the leader reconciles, so each rule keeps the series of the replica that leads now
 * (`and on(instance) leader == 1`): a replica that led before keeps its last values, which must not alert.
 */
import { AlertGroup, AlertRule } from './alert-rule';
import { DashboardSection } from './dashboard';
import {
  LEADER, RECONCILE_ERRORS, UPDATE_OLD_REPLICAS, UPDATE_PHASE, UPDATE_PROGRESS, WORKLOAD_ZONE_PODS,
  WORKLOAD_ZONE_READY_PODS, ZONE_SHIFT_EXPIRY,
} from '../contract/metrics';

/** Within this long of its expiry a shift alerts: time to extend it (or let the zone back) on purpose. */
export const SHIFT_EXPIRY_WARNING_SECONDS = 3600;
/** A ZoneAwareUpdate that has not moved a pod off the old revision for this long is stuck. */
export const UPDATE_STALL_MINUTES = 30;
/** A zone whose pods of a workload have none Ready this long, while the workload is Ready elsewhere, alerts. */
export const ZONE_PODS_NOT_READY_MINUTES = 5;
/** Keeps a rule to the series of the controller replica that leads now. */
export const LEADING = `and on(instance) (${LEADER} == 1)`;

const zoneShiftActive: AlertRule = {
  alert: 'ZoneShiftActive',
  expr: `${ZONE_SHIFT_EXPIRY} ${LEADING}`,
  severity: 'info',
  summary: 'Zone {{ $labels.zone }} is out of service: ZoneShift {{ $labels.shift }} holds until {{ $value | humanizeTimestamp }}',
  description: 'New pods are kept out of zone {{ $labels.zone }} (its nodes are tainted, its pods held out of their Services)'
    + ' until the shift expires or is cancelled{{ if eq $labels.lost "true" }}; the zone is declared lost, so the opted-in'
    + ' StatefulSets\' pods there are brought back elsewhere{{ end }}.',
};

const zoneShiftExpiring: AlertRule = {
  alert: 'ZoneShiftExpiringSoon',
  expr: `(${ZONE_SHIFT_EXPIRY} - time()) < ${SHIFT_EXPIRY_WARNING_SECONDS} ${LEADING}`,
  severity: 'warning',
  summary: 'ZoneShift {{ $labels.shift }} gives zone {{ $labels.zone }} back to service within the hour'
    + ' ({{ $value | humanizeDuration }})',
  description: 'When it expires, new pods go to zone {{ $labels.zone }} again. If the zone is still impaired, extend the'
    + ' shift; if it has recovered, let it expire or cancel it.',
};

const updateStalled: AlertRule = {
  alert: 'ZoneAwareUpdateStalled',
  expr: `(time() - ${UPDATE_PROGRESS}) > ${UPDATE_STALL_MINUTES * 60}`
    + ` unless on(instance, namespace, name) (${UPDATE_PHASE}{phase="Done"} == 1) ${LEADING}`,
  severity: 'warning',
  summary: 'ZoneAwareUpdate {{ $labels.namespace }}/{{ $labels.name }} has not progressed in zone {{ $labels.zone }}'
    + ` for ${UPDATE_STALL_MINUTES} minutes`,
  description: 'No pod has left the old revision for {{ $value | humanizeDuration }}: the update waits on pods that do'
    + ' not become Ready, a ready check that fails, its pause condition, or the update it starts after.',
};

// A zone held out by a shift makes its gated pods not Ready on purpose: ZoneShiftActive tells that already.
const zonePodsNotReady: AlertRule = {
  alert: 'ZonePodsNotReady',
  expr: `(${WORKLOAD_ZONE_READY_PODS} == 0 and ${WORKLOAD_ZONE_PODS} > 0)`
    + ` and on(instance, namespace, workload) (sum by (instance, namespace, workload) (${WORKLOAD_ZONE_READY_PODS}) > 0)`
    + ` unless on(instance, zone) ${ZONE_SHIFT_EXPIRY} ${LEADING}`,
  for: `${ZONE_PODS_NOT_READY_MINUTES}m`,
  severity: 'warning',
  summary: 'Zone {{ $labels.zone }}: no pod of {{ $labels.namespace }}/{{ $labels.workload }} is Ready, while it is'
    + ' Ready in other zones',
  description: `For ${ZONE_PODS_NOT_READY_MINUTES} minutes, none of the pods of {{ $labels.workload }} in zone`
    + ' {{ $labels.zone }} has been Ready, while its pods in other zones are: the zone, not the workload, is the likely'
    + ' cause. More workloads alerting in the same zone make it a candidate for a ZoneShift of zone {{ $labels.zone }}'
    + ' (runbooks/zone-impaired.md).',
};

const reconcileErrors: AlertRule = {
  alert: 'ZoneControllerReconcileErrors',
  expr: `sum by (instance, reconciler) (rate(${RECONCILE_ERRORS}[10m])) > 0 ${LEADING}`,
  for: '15m',
  severity: 'warning',
  summary: 'The zone controller\'s {{ $labels.reconciler }} reconciler keeps failing',
  description: 'Its reconciles have failed (and been retried) for 15 minutes: what it does for the zones'
    + ' (shifts, updates, Redis) is not done. Its log says why.',
};

/** The controller's rules. */
export function controllerAlertGroup(): AlertGroup {
  return {
    name: 'cdk8s-zones-controller',
    rules: [zoneShiftActive, zoneShiftExpiring, updateStalled, zonePodsNotReady, reconcileErrors],
  };
}

/** The controller's panels of the zone dashboard: the opted-in workloads' readiness, shifts and rollouts, per zone. */
export function controllerDashboardSection(): DashboardSection {
  const leading = (series: string) => `(${series} ${LEADING})`;
  return {
    title: 'Zone controller: readiness, shifts and rollouts',
    panels: [
      {
        title: 'Ready pods of the zone-annotated workloads, by zone',
        description: 'The opted-in pods whose Ready condition is True: a zone falling while the others hold is impaired'
          + ' (runbooks/alerts.md#zonepodsnotready).',
        expr: `sum by (zone) ${leading(WORKLOAD_ZONE_READY_PODS)}`,
        legend: '{{zone}}',
      },
      {
        title: 'Pods of the zone-annotated workloads not Ready, by zone',
        description: 'The opted-in pods bound to a node of the zone but not Ready: starting, failing, or held out by a shift.',
        expr: `sum by (zone) ${leading(`(${WORKLOAD_ZONE_PODS} - ${WORKLOAD_ZONE_READY_PODS})`)}`,
        legend: '{{zone}}',
      },
      {
        title: 'ZoneShifts in force, by zone',
        description: 'A zone with a shift is out of service: new pods go elsewhere (runbooks/alerts.md#zoneshiftactive).',
        expr: `count by (zone) ${leading(ZONE_SHIFT_EXPIRY)}`,
        legend: '{{zone}}',
      },
      {
        title: 'Time left on each ZoneShift',
        description: 'When it reaches 0 the zone is back in service; extend a shift before, if the zone is still impaired.',
        expr: `max by (zone, shift) ${leading(ZONE_SHIFT_EXPIRY)} - time()`,
        legend: '{{zone}} {{shift}}',
        unit: 's',
      },
      {
        title: 'ZoneAwareUpdates: pods on the old revision, by zone',
        description: 'A rollout goes zone by zone: one zone falls to 0 before the next starts to fall.',
        expr: `sum by (zone) ${leading(UPDATE_OLD_REPLICAS)}`,
        legend: '{{zone}}',
      },
    ],
  };
}
