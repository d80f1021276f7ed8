/** Manifests for the zone check's rule tests (analyze.test.ts, placement-rules.test.ts), and the check over them. */
import { ZoneInventory, ZoneReport } from '../../src';

export const ZONES = ['a', 'b', 'c'];
export const ZONE_KEY = 'topology.kubernetes.io/zone';
export const inventory = ZoneInventory.equalNodes(ZONES, 2);

/** A Deployment `name` with `replicas`, pods labelled app=<name>, and `pod` merged into its pod spec. */
export function deployment(name: string, replicas: number, pod: any = {}, meta: any = {}): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...meta },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'x' }], ...pod },
      },
    },
  };
}
export const zoneSpread = (app: string, extra: any = {}) => ({
  topologySpreadConstraints: [{
    topologyKey: ZONE_KEY,
    maxSkew: 1,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app } },
    ...extra,
  }],
});
export const check = (...objects: any[]) => ZoneReport.analyze(objects, inventory);
export const rules = (r: ZoneReport, i = 0) => r.workloads[i].findings.map((f) => f.rule).sort();
/** A required node selector: nodes in one of `zones`. */
export const inZones = (zones: string[]) => ({
  nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: zones }] }],
});
