/**
 * What the operator-model tests share: an inventory of 3 zones of 3 nodes, the check over it, and ways to read its
 * report.
 */
import { ZoneInventory, ZoneReport } from '../../../src';
import { WorkloadReport } from '../../../src/check/model';

export const ZONE_KEY = 'topology.kubernetes.io/zone';
export const ZONES = ['zone-a', 'zone-b', 'zone-c'];
export const check = (...objects: unknown[]) => ZoneReport.analyze(objects, ZoneInventory.equalNodes(ZONES, 3));
/** The report's row of `kind` `name`. */
export const row = (r: ZoneReport, kind: string, name: string): WorkloadReport => {
  const found = r.workloads.find((w) => w.kind === kind && w.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the report: ${r.workloads.map((w) => `${w.kind} ${w.name}`).join(', ')}`);
  return found;
};
export const allZones = (survives: boolean) => Object.fromEntries(ZONES.map((z) => [z, survives]));
export const errors = (w: WorkloadReport) => w.findings.filter((f) => f.severity === 'error');
export const skippedMessages = (r: ZoneReport) => r.data.findings.filter((f) => f.rule === 'object-skipped').map((f) => f.message);

/** Pinned to one zone by a required node affinity. */
export const pinnedTo = (zone: string) => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: 'In', values: [zone] }] }],
    },
  },
});
/** A DoNotSchedule zone spread over the pods labelled `labels`. */
export const hardZoneSpread = (labels: Record<string, string>) => ({
  topologyKey: ZONE_KEY, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels },
});
