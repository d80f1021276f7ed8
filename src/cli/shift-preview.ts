/**
 * What a shift will keep in service, said before it starts (`cdk8s-zones shift start`): the opted-in pods of its
 * zone that the fail-safe keeps (src/contract/zone-shift-fail-safe.ts), read from the cluster as the controller
 * reads it, so a shift that would protect nothing of a workload says so at once.
 */
import { zoneKeyOf } from '../check/cluster-nodes';
import { ZoneAnnotation } from '../contract/zone-annotation';
import { ZONE_IN_SERVICE_CONDITION, ZoneShiftSpec } from '../contract/zone-shift';
import { failSafeKept, shiftPodOf, ShiftPodFields, shiftServiceOf } from '../contract/zone-shift-fail-safe';
import { KubeObject, KubeRequestApi, listAll } from '../kubernetes/kube-api';
import { Node } from '../kubernetes/objects';

const OPTED_IN = `${ZoneAnnotation.OPT_IN_LABEL}=${ZoneAnnotation.OPT_IN_VALUE}`;

/** The paths of a list in the shift's namespaces, or cluster-wide. */
function pathsOf(resource: string, spec: ZoneShiftSpec): string[] {
  const namespaces = spec.namespaces ?? [];
  if (namespaces.length === 0) return [`/api/v1/${resource}`];
  return namespaces.map((ns) => `/api/v1/namespaces/${encodeURIComponent(ns)}/${resource}`);
}

const gated = (pod: KubeObject) => {
  const gates = pod.spec?.readinessGates as { conditionType?: string }[] | undefined;
  return gates?.some((g) => g.conditionType === ZONE_IN_SERVICE_CONDITION) ?? false;
};

/** Each gated pod of the shift's zone and namespaces that the fail-safe would keep in service, with why. */
export async function failSafePreview(
  api: KubeRequestApi, spec: ZoneShiftSpec, nodes: readonly KubeObject[],
): Promise<Map<string, string>> {
  const key = zoneKeyOf(nodes as readonly Node[]);
  const zoneOfNode = new Map(nodes.map((n) => [n.metadata.name, n.metadata.labels?.[key]]));
  const [pods, services] = await Promise.all([
    Promise.all(pathsOf('pods', spec).map((p) => listAll(api, p, { labelSelector: OPTED_IN }))).then((l) => l.flat()),
    Promise.all(pathsOf('services', spec).map((p) => listAll(api, p))).then((l) => l.flat()),
  ]);
  const shiftPods = pods.map((p) => shiftPodOf(p as ShiftPodFields, zoneOfNode.get(p.spec?.nodeName)));
  const kept = failSafeKept(shiftPods, services.map(shiftServiceOf), new Set([spec.zone]));
  const gatedKeys = new Set(pods.filter(gated).map((p) => `${p.metadata.namespace}/${p.metadata.name}`));
  return new Map([...kept].filter(([podKey]) => gatedKeys.has(podKey)));
}
