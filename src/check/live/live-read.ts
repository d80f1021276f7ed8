/**
 * What `cdk8s-zones check --live` reads from a cluster, read-only: its nodes, workloads, pods, budgets,
 * autoscalers, storage, ConfigMaps and the operators' resources the check models, each list in all namespaces or in
 * those of `--namespace`. A list the server does not serve (404: a CRD not installed) or denies (403) is named in the
 * report, never a crash; the whole reading is bounded by `--timeout`.
 */
import { docsUrl } from '../../contract/docs';
import { ROLLOUT_API_VERSION, ZONE_DISRUPTION_BUDGET_PLURAL } from '../../contract/rollout';
import { inventoryProps } from '../cluster-nodes';
import { ZoneInventory } from '../inventory';
import { liveInput } from './live-input';
import { isStatus, KubeRequestApi, listAll } from '../../kubernetes/kube-api';
import { Live, Node } from '../../kubernetes/objects';
import { UsageError } from '../../shared/errors';
import { CheckInput } from '../check-input';
import { FindingSeverity, ZoneFinding } from '../model';
import { OPERATOR_MODELS } from '../operator-models/catalog';

/** One list `check --live` reads: its API path prefix and resource, whether namespaced, and whether a CRD's. */
export interface LiveList {
  /** `/api/v1` or `/apis/<group>/<version>`; an operator's versions in the order tried (the first served is read). */
  readonly apis: readonly string[];
  readonly resource: string;
  readonly namespaced: boolean;
  /** An operator's (or this project's) resource: its CRD may not be installed. */
  readonly custom?: boolean;
}

const core = (resource: string, namespaced = true): LiveList => ({ apis: ['/api/v1'], resource, namespaced });
const group = (api: string, resource: string, namespaced = true): LiveList => ({
  apis: [`/apis/${api}`], resource, namespaced,
});
/** An operator's resource, in each version its model knows. */
const operatorList = (apiGroup: string, resource: string, versions: readonly string[]): LiveList => ({
  apis: versions.map((v) => `/apis/${apiGroup}/${v}`), resource, namespaced: true, custom: true,
});

/** Every list `check --live` reads (docs/check.md shows them, cli-rbac.ts grants them). */
export const LIVE_LISTS: readonly LiveList[] = [
  core('pods'), core('persistentvolumeclaims'), core('persistentvolumes', false), core('configmaps'), core('services'),
  group('apps/v1', 'deployments'), group('apps/v1', 'statefulsets'), group('apps/v1', 'replicasets'),
  group('apps/v1', 'daemonsets'), group('batch/v1', 'jobs'), group('policy/v1', 'poddisruptionbudgets'),
  group('autoscaling/v2', 'horizontalpodautoscalers'), group('storage.k8s.io/v1', 'storageclasses', false),
  { ...group(ROLLOUT_API_VERSION, ZONE_DISRUPTION_BUDGET_PLURAL), custom: true },
  ...OPERATOR_MODELS.flatMap((m) => [
    operatorList(m.group, m.plural, m.versions),
    ...m.podSets.flatMap((p) => (p.forEach !== undefined && 'resources' in p.forEach
      ? [operatorList(p.forEach.resources.group, p.forEach.resources.plural, m.versions)] : [])),
  ]),
];

/** The paths of one list in one API version: cluster-wide, or one per namespace. */
function pathsOf(api: string, list: LiveList, namespaces: readonly string[] | undefined): string[] {
  if (!list.namespaced || namespaces === undefined) return [`${api}/${list.resource}`];
  return namespaces.map((ns) => `${api}/namespaces/${encodeURIComponent(ns)}/${list.resource}`);
}

/** What the cluster runs, as the check's input, and its nodes as the inventory; within `timeoutMs`. */
export async function readLiveCluster(
  api: KubeRequestApi, namespaces: readonly string[] | undefined, timeoutMs: number,
  zones: readonly string[] | undefined,
): Promise<{ input: CheckInput; inventory: ZoneInventory }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UsageError(`could not read the cluster within --timeout ${timeoutMs / 1000}s`)), timeoutMs);
  });
  try {
    return await Promise.race([read(api, namespaces, zones), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function read(
  api: KubeRequestApi, namespaces: readonly string[] | undefined, zones: readonly string[] | undefined,
): Promise<{ input: CheckInput; inventory: ZoneInventory }> {
  const { nodes, objects, findings } = await readLiveObjects(api, namespaces);
  const inventory = new ZoneInventory(inventoryProps({ kind: 'NodeList', items: nodes }, zones && [...zones]));
  const input = liveInput(objects, nodes, inventory.topologyKey);
  return { input: { ...input, findings: [...findings, ...input.findings] }, inventory };
}

/** The cluster's nodes and every object of `LIVE_LISTS` (in `namespaces`, or all), and what could not be read. */
export async function readLiveObjects(
  api: KubeRequestApi, namespaces: readonly string[] | undefined,
): Promise<{ nodes: Live<Node>[]; objects: unknown[]; findings: ZoneFinding[] }> {
  const nodes = (await listAll(api, '/api/v1/nodes')).map((n) => ({ ...n, kind: 'Node' })) as Live<Node>[];
  const objects: unknown[] = [];
  const findings: ZoneFinding[] = [];
  for (const list of LIVE_LISTS) {
    const one = await readList(api, list, namespaces);
    objects.push(...one.objects);
    findings.push(...one.findings);
  }
  return { nodes, objects, findings };
}

/**
 * One list's objects, from the first of its API versions the server serves; what could not be read, named. A 404
 * means the version is not served at all (a served resource lists a missing namespace as empty): it is named once,
 * not once per namespace, and the next version is tried.
 */
async function readList(
  api: KubeRequestApi, list: LiveList, namespaces: readonly string[] | undefined,
): Promise<{ objects: unknown[]; findings: ZoneFinding[] }> {
  let unserved: ZoneFinding | undefined;
  for (const version of list.apis) {
    const objects: unknown[] = [];
    const findings: ZoneFinding[] = [];
    unserved = undefined;
    for (const path of pathsOf(version, list, namespaces)) {
      try {
        objects.push(...await listAll(api, path));
      } catch (e) {
        if (isStatus(e, 404)) {
          unserved = unreadable(pathsOf(version, list, undefined)[0], false, list.custom === true);
          break;
        }
        if (!isStatus(e, 403)) throw e;
        findings.push(unreadable(path, true, list.custom === true));
      }
    }
    if (!unserved) return { objects, findings };
  }
  return { objects: [], findings: unserved ? [unserved] : [] };
}

/** A list the check could not read, named in the report. */
function unreadable(path: string, denied: boolean, isCustom: boolean): ZoneFinding {
  if (denied) {
    return {
      rule: 'live-list-denied',
      severity: FindingSeverity.WARNING,
      message: `the cluster denied the list ${path} (403): what it holds is not checked`,
      fix: `Grant the reader list on that resource: the ClusterRole of ${docsUrl('runbooks/prove-zone-survival.md', 'Check what runs')}.`,
    };
  }
  return {
    rule: 'live-list-unserved',
    severity: FindingSeverity.INFO,
    message: `the cluster does not serve ${path} (404)${isCustom ? ': its CRD is not installed, so there is none to check' : ''}`,
    fix: 'Nothing to fix if that API is not meant to be there.',
  };
}
