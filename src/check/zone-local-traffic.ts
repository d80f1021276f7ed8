/**
 * Services that keep traffic in its zone (`trafficDistribution: PreferSameZone`, PreferClose or PreferSameNode; not
 * overridden by topology-mode Auto): the EndpointSlice controller hints
 * each endpoint for its own zone, and a client's node routes to endpoints of its zone while there are any. A zone
 * that may hold none of the Service's pods sends its clients' traffic to other zones, unannounced. Pure.
 */
import { CheckService, CheckWorkload } from './check-input';
import { selects } from './eligibility';
import { FindingSeverity, WorkloadReport, ZoneFinding } from './model';
import { keepsTrafficInZone, trafficPolicy } from '../traffic/policy';

/** The rule id of the note (docs/check.md, "Rules"). */
export const ZONE_LOCAL_TRAFFIC_GAP = 'zone-local-traffic-gap';

/**
 * A note for each zone-local Service whose pods (those of the workloads its selector selects, in its namespace)
 * may be absent from some zone in the worst case; `reports[i]` is `workloads[i]`'s.
 */
export function zoneLocalTrafficFindings(
  services: readonly CheckService[],
  workloads: readonly CheckWorkload[],
  reports: readonly WorkloadReport[],
  zones: readonly string[],
): ZoneFinding[] {
  return services.flatMap((s) => {
    if (s.selector === undefined || !keepsTrafficInZone(trafficPolicy(s))) return [];
    const isSelected = (w: CheckWorkload) => (w.namespace ?? '') === (s.namespace ?? '')
      && selects({ matchLabels: s.selector! }, w.podLabels);
    const selected = workloads.flatMap((w, i) => (isSelected(w) ? [i] : []));
    if (selected.length === 0) return [];
    const guaranteed = (zone: string) => selected.reduce((n, i) => n + (reports[i].perZone[zone]?.guaranteed ?? 0), 0);
    const bare = zones.filter((z) => guaranteed(z) === 0);
    if (bare.length === 0) return [];
    const service = `Service ${s.namespace ? `${s.namespace}/` : ''}${s.name}`;
    const pods = selected.map((i) => `${workloads[i].kind} ${workloads[i].name}`).join(', ');
    return [{
      rule: ZONE_LOCAL_TRAFFIC_GAP,
      severity: FindingSeverity.INFO,
      message: `${service} keeps clients' traffic in their zone (trafficDistribution: ${s.trafficDistribution}), but its pods ` +
        `(${pods}) may be absent from zone(s) ${bare.join(', ')} in the worst case: clients there then reach other zones`,
      fix: 'Run enough replicas under a hard (DoNotSchedule) zone spread that every zone holds one (more than (zones - 1) x maxSkew), or accept the cross-zone traffic',
    }];
  });
}

