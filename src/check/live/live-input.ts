/**
 * The zone check's input from what a cluster runs (pure): its workloads with the pods they run now and where (the
 * analysis judges each by the worse of now and any reschedule its spec allows), pod sets an operator made without a
 * workload object (grouped by their owner), and every workload an operator's resource owns grouped under it: by its
 * model where the check has one (operator-models/), else judged member by member. Its volumes and claims pin pods
 * to their zones as manifests' do.
 */
import { asResource, KindedResource, Live, Meta, Node, OwnerRef, Pod, PodSpec } from '../../kubernetes/objects';
import { isActive } from '../../kubernetes/pod-life';
import { CheckInput, CheckSystem, CheckWorkload } from '../check-input';
import { FindingSeverity } from '../model';
import { modelFor } from '../operator-models/catalog';
import { operatorSystem } from '../operator-models/interpret';
import { stringMap } from '../operators';
import { readManifests } from '../workloads';

/** Kinds whose objects stand for their pods: a pod's controller of one of them is its workload. */
const POD_OWNERS = ['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job'];
/** Kinds of Kubernetes itself that are read as manifests are (everything else listed is an operator's resource). */
const BUILT_IN = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job', 'Pod', 'PodDisruptionBudget',
  'HorizontalPodAutoscaler', 'Service', 'PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'ConfigMap', 'ZoneDisruptionBudget']);

/** The check's input from the listed objects of a cluster (pods among them) and its nodes. */
export function liveInput(objects: readonly unknown[], nodes: readonly Live<Node>[], topologyKey: string): CheckInput {
  const resources = objects.map(asResource).filter((o): o is KindedResource => o !== undefined);
  const pods = resources.filter((o): o is KindedResource & Live<Pod> => o.kind === 'Pod'
    && typeof o.metadata?.name === 'string' && isActive(o as Live<Pod>));
  const owned = (o: { readonly metadata?: Meta }) => controllerOf(o) !== undefined;
  const read = readManifests([
    ...resources.filter((o) => BUILT_IN.has(o.kind) && o.kind !== 'Pod' && !ownedByDeployment(o)),
    ...pods.filter((p) => !owned(p)),
  ], topologyKey);
  const zoneOf = new Map(nodes.map((n) => [n.metadata.name, n.metadata.labels?.[topologyKey]]));
  const podSets = podSetsOf(pods.filter((p) => !POD_OWNERS.includes(controllerOf(p)?.kind ?? '') && owned(p)));
  const running = runningByWorkload(pods, resources, zoneOf);
  const workloads = [...read.workloads, ...podSets].map((w) => ({ ...w, running: running.get(keyOf(w)) ?? {} }));
  const systems = operatorSystems(resources, workloads, read);
  return { ...read, workloads: systems.workloads, systems: systems.systems };
}

function controllerOf(o: { readonly metadata?: Meta }): OwnerRef | undefined {
  const refs = Array.isArray(o.metadata?.ownerReferences) ? o.metadata!.ownerReferences : [];
  return refs.find((r) => r?.controller === true);
}

function ownedByDeployment(o: KindedResource): boolean {
  return o.kind === 'ReplicaSet' && controllerOf(o)?.kind === 'Deployment';
}

const keyOf = (w: { kind: string; namespace?: string; name: string }) => `${w.namespace ?? ''}/${w.kind}/${w.name}`;

/** The workload each pod belongs to (its controller; a Deployment's ReplicaSet's, the Deployment), by key. */
function workloadKeyOfPod(pod: Live<Pod>, replicaSets: ReadonlyMap<string, KindedResource>): string | undefined {
  const owner = controllerOf(pod);
  if (owner?.kind === undefined || owner.name === undefined) return undefined;
  const ns = pod.metadata.namespace;
  const rs = owner.kind === 'ReplicaSet' ? replicaSets.get(`${ns ?? ''}/${owner.name}`) : undefined;
  const deployment = rs === undefined ? undefined : controllerOf(rs);
  return deployment?.kind === 'Deployment' && deployment.name !== undefined
    ? keyOf({ kind: 'Deployment', namespace: ns, name: deployment.name })
    : keyOf({ kind: owner.kind, namespace: ns, name: owner.name });
}

/** Per workload key: its pods running now in each zone (scheduled, not ended or terminating). */
function runningByWorkload(
  pods: readonly Live<Pod>[], resources: readonly KindedResource[], zoneOf: ReadonlyMap<string, string | undefined>,
): Map<string, Record<string, number>> {
  const replicaSets = new Map(resources.filter((o) => o.kind === 'ReplicaSet')
    .map((o) => [`${o.metadata?.namespace ?? ''}/${o.metadata?.name}`, o]));
  const out = new Map<string, Record<string, number>>();
  for (const pod of pods) {
    const zone = typeof pod.spec?.nodeName === 'string' ? zoneOf.get(pod.spec.nodeName) : undefined;
    const bare = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name };
    const key = workloadKeyOfPod(pod, replicaSets) ?? keyOf(bare);
    if (zone === undefined) continue;
    const perZone = out.get(key) ?? {};
    perZone[zone] = (perZone[zone] ?? 0) + 1;
    out.set(key, perZone);
  }
  return out;
}

/**
 * Pods an operator made itself (their controller is its own kind: a StrimziPodSet, a CloudNativePG Cluster), one
 * workload per owner: its pods' spec (not pinned to their nodes) and the labels they all share.
 */
function podSetsOf(pods: readonly Live<Pod>[]): CheckWorkload[] {
  const byOwner = new Map<string, Live<Pod>[]>();
  for (const pod of pods) {
    const owner = controllerOf(pod)!;
    const key = `${pod.metadata.namespace ?? ''}/${owner.kind}/${owner.name}`;
    byOwner.set(key, [...byOwner.get(key) ?? [], pod]);
  }
  return [...byOwner.values()].map((group) => {
    const owner = controllerOf(group[0])!;
    const labels = group.map((p) => stringMap(p.metadata.labels));
    const shared = Object.fromEntries(Object.entries(labels[0]).filter(([k, v]) => labels.every((l) => l[k] === v)));
    const { nodeName: _pinnedNow, ...spec } = group[0].spec ?? {} as PodSpec;
    return {
      kind: owner.kind!,
      namespace: group[0].metadata.namespace,
      name: owner.name!,
      replicas: group.length,
      replicasFrom: `the ${group.length} pods it runs now (it makes them itself)`,
      podLabels: shared,
      pod: spec,
      claimClasses: [],
      claimTemplates: [],
      podClaims: (Array.isArray(spec.volumes) ? spec.volumes : [])
        .map((v) => v?.persistentVolumeClaim?.claimName).filter((n: unknown): n is string => typeof n === 'string'),
      annotations: {},
      labels: {},
    };
  });
}

/**
 * Workloads grouped under the operator's resource that owns them: a modelled one's by its model (its needs, its pod
 * sets found by kind and name; one not made yet counted as running nothing), any other's judged member by member.
 */
function operatorSystems(
  resources: readonly KindedResource[], workloads: readonly CheckWorkload[], input: CheckInput,
): { workloads: CheckWorkload[]; systems: CheckSystem[] } {
  const out = [...workloads];
  const systems: CheckSystem[] = [];
  for (const o of resources.filter((r) => !BUILT_IN.has(r.kind) && r.kind !== 'Pod')) {
    const model = modelFor(o);
    const name = o.metadata?.name;
    if (model === undefined || typeof name !== 'string') continue;
    const ns = o.metadata?.namespace;
    const modelled = operatorSystem(model, o, name, ns, resources);
    if (typeof modelled === 'string') {
      input.findings.push({
        rule: 'object-skipped',
        severity: FindingSeverity.WARNING,
        message: `${o.kind} ${ns ? `${ns}/` : ''}${name} ${modelled}: judged by what it made instead`,
        fix: 'Nothing to fix: its workloads are checked one by one.',
      });
      continue;
    }
    for (const member of modelled.workloads) {
      const i = out.findIndex((w) => w.kind === member.kind && w.name === member.name && w.namespace === ns);
      if (i >= 0) out[i] = { ...out[i], partOf: name };
      else out.push({ ...member, running: {} });
    }
    systems.push(modelled.system);
  }
  // what any other resource made: its workloads under it, each judged by its own needs
  const listed = new Map(resources.map((r) => [
    keyOf({ kind: r.kind, namespace: r.metadata?.namespace, name: r.metadata?.name ?? '' }), r,
  ]));
  const byOwner = new Map<string, number[]>();
  out.forEach((w, i) => {
    const object = w.partOf === undefined ? listed.get(keyOf(w)) : undefined;
    // none for a pod set: it is its operator's own object
    const owner = object === undefined ? undefined : controllerOf(object);
    if (owner === undefined || POD_OWNERS.includes(owner.kind!) || owner.kind === 'Deployment') return;
    const key = `${w.namespace ?? ''}/${owner.kind}/${owner.name}`;
    byOwner.set(key, [...byOwner.get(key) ?? [], i]);
  });
  for (const [key, members] of byOwner) {
    const [namespace, kind, name] = key.split('/');
    for (const i of members) out[i] = { ...out[i], partOf: name };
    systems.push({
      kind,
      namespace: namespace === '' ? undefined : namespace,
      name,
      members: members.map((i) => out[i].name),
      needs: [],
      evidence: `made by its ${kind} (owner references), each judged by what it needs`,
      findings: [],
      membersJudgedAlone: true,
    });
  }
  return { workloads: out, systems };
}
