/**
 * The objects of a set of manifests the zone check reads (pure): the workloads with their pod templates, the
 * PodDisruptionBudgets, the StorageClasses their volumes use, and the Services that prefer same-zone endpoints. Anything else is left alone; a malformed
 * object becomes a finding, never an exception.
 */
import { autoscalerFor, autoscalerOf, CheckAutoscaler } from './autoscalers';
import { CheckInput, CheckVolume, CheckWorkload } from './check-input';
import { FindingSeverity, ZoneFinding } from './model';
import { looksLikeWorkload, operatorWorkloads, stringMap } from './operators';
import { ROLLOUT_API_VERSION, ZONE_DISRUPTION_BUDGET_KIND } from '../contract/rollout';
import { REPLICAS_ANNOTATION } from '../contract/zone-check';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../kubernetes/standard-labels';

/** The trafficDistribution values that keep a client's traffic in its own zone when an endpoint is there. */
export const ZONE_LOCAL_TRAFFIC = ['PreferSameZone', 'PreferClose'];

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job', 'CronJob', 'Pod'];
const RUN_TO_COMPLETION = ['Job', 'CronJob'];
const STORAGE_AND_BUDGET_KINDS = ['PersistentVolume', 'PersistentVolumeClaim', 'PodDisruptionBudget', ZONE_DISRUPTION_BUDGET_KIND, 'StorageClass'];

/** A bare Pod that is not restarted (restartPolicy Never or OnFailure: a Helm test, a one-off task) runs to completion. */
const runsToCompletion = (o: any) => RUN_TO_COMPLETION.includes(o.kind) || (o.kind === 'Pod' && ['Never', 'OnFailure'].includes(o.spec?.restartPolicy));

/** Reads the manifests (objects; `List`s expanded) the check needs. */
export function readManifests(manifests: readonly unknown[], topologyKey: string): CheckInput {
  const input: CheckInput = {
    workloads: [], budgets: [], storageClasses: [], volumes: [], claimVolumes: new Map(), zoneLocalServices: [], findings: [],
  };
  const objects = manifests.flatMap((m: any) => (m?.kind === 'List' && Array.isArray(m.items) ? m.items : [m]));
  const autoscalers: CheckAutoscaler[] = [];
  objects.forEach((o: any, i) => {
    if (typeof o !== 'object' || o === null || Array.isArray(o) || typeof o.kind !== 'string') {
      input.findings.push(skipped(`object ${i}`, 'is not a Kubernetes object (no kind)'));
      return;
    }
    const name = typeof o.metadata?.name === 'string' ? o.metadata.name : undefined;
    const namespace = typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : undefined;
    const what = `${o.kind} ${namespace ? `${namespace}/` : ''}${name ?? `(object ${i}, no name)`}`;
    // what an operator's resource or an autoscaler is (each read once: a custom resource is read in full)
    const placed = name === undefined || WORKLOAD_KINDS.includes(o.kind) ? undefined : operatorWorkloads(o, name, namespace, objects);
    const autoscaler = name === undefined || placed !== undefined ? undefined : autoscalerOf(o, name, namespace);
    if (WORKLOAD_KINDS.includes(o.kind)) {
      const workload = builtInWorkload(o, name, namespace);
      if (typeof workload === 'string') input.findings.push(skipped(what, workload));
      else input.workloads.push(workload);
    } else if (placed !== undefined) {
      if (typeof placed === 'string') input.findings.push(skipped(what, placed));
      else input.workloads.push(...placed);
    } else if (autoscaler !== undefined) {
      if (typeof autoscaler === 'string') input.findings.push(skipped(what, autoscaler));
      else autoscalers.push(autoscaler);
    } else if (name !== undefined && STORAGE_AND_BUDGET_KINDS.includes(o.kind)) {
      readStorageOrBudget(o, name, namespace, topologyKey, input);
    } else if (name !== undefined && o.kind === 'Service') {
      const selector = stringMap(o.spec?.selector);
      const traffic = o.spec?.trafficDistribution;
      if (ZONE_LOCAL_TRAFFIC.includes(traffic) && Object.keys(selector).length > 0) {
        input.zoneLocalServices.push({ namespace, name, selector, trafficDistribution: traffic });
      }
    } else {
      const field = looksLikeWorkload(o);
      if (field !== undefined) {
        input.findings.push(skipped(what, `runs pods (its ${field}), but the check does not know how its operator places them (${o.apiVersion})`,
          'Check the pods it makes: render them, or check the cluster they run in with --kubeconfig.'));
      }
    }
    return undefined;
  });
  return { ...input, workloads: input.workloads.map((w) => scaledBy(w, autoscalers)) };
}

/** The replicas a workload's REPLICAS_ANNOTATION says its controller scales it to (`replicas` unset), and that source. */
function replicasLeftToController(value: unknown): { replicas?: number; from: string } | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
  return n !== undefined && Number.isSafeInteger(n) ? { replicas: n, from: `the ${REPLICAS_ANNOTATION} annotation (replicas unset: its controller scales it)` }
    : { from: `the ${REPLICAS_ANNOTATION} annotation ${JSON.stringify(value)} is not a whole number: 1 assumed (replicas unset)` };
}

/** A built-in workload as the check reads it, or why it is skipped. */
function builtInWorkload(o: any, name: string | undefined, namespace: string | undefined): CheckWorkload | string {
  if (name === undefined) return 'has no metadata.name';
  // a CronJob's pods are those of the Job it makes from its jobTemplate; a bare Pod is its own template
  const spec = o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec : o.kind === 'Pod' ? { template: o } : o.spec;
  const template = spec?.template;
  if (typeof template?.spec !== 'object' || template.spec === null) return 'has no pod template';
  const templates: any[] = o.kind === 'StatefulSet' && Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : [];
  const scaled = o.kind === 'DaemonSet' || RUN_TO_COMPLETION.includes(o.kind) || spec.replicas !== undefined ? undefined
    : replicasLeftToController(o.metadata?.annotations?.[REPLICAS_ANNOTATION]);
  const replicas = o.kind === 'DaemonSet' ? undefined : RUN_TO_COMPLETION.includes(o.kind) ? spec.parallelism ?? 1 : spec.replicas ?? scaled?.replicas ?? 1;
  if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 0)) {
    return `has replicas ${JSON.stringify(replicas)}, not a whole number`;
  }
  return {
    kind: o.kind,
    namespace,
    name,
    replicas,
    ...(scaled ? { replicasFrom: scaled.from } : {}),
    replicasInManifest: o.kind === 'DaemonSet' || RUN_TO_COMPLETION.includes(o.kind) ? undefined : spec.replicas,
    runToCompletion: runsToCompletion(o) || undefined,
    perNode: o.kind === 'DaemonSet' || undefined,
    fromLibrary: o.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE || undefined,
    podLabels: stringMap(template.metadata?.labels),
    pod: template.spec,
    claimClasses: templates.map((t: any) => (typeof t?.spec?.storageClassName === 'string' ? t.spec.storageClassName : undefined)),
    claimTemplates: templates.map((t: any) => t?.metadata?.name).filter((n: unknown): n is string => typeof n === 'string'),
    podClaims: (Array.isArray(template.spec.volumes) ? template.spec.volumes : [])
      .map((v: any) => v?.persistentVolumeClaim?.claimName).filter((n: unknown): n is string => typeof n === 'string'),
    annotations: stringMap(o.metadata?.annotations),
    labels: stringMap(o.metadata?.labels),
  };
}

/** What a PersistentVolume, a claim bound to one, a PodDisruptionBudget or a StorageClass adds to the input. */
function readStorageOrBudget(o: any, name: string, namespace: string | undefined, topologyKey: string, input: CheckInput): void {
  if (o.kind === 'PersistentVolume') {
    const nodeTerms = o.spec?.nodeAffinity?.required?.nodeSelectorTerms;
    const ref = o.spec?.claimRef;
    if (Array.isArray(nodeTerms)) {
      input.volumes.push({ name, nodeTerms, claim: typeof ref?.name === 'string' ? { namespace: ref.namespace, name: ref.name } : undefined });
    }
  } else if (o.kind === 'PersistentVolumeClaim' && typeof o.spec?.volumeName === 'string') {
    input.claimVolumes.set(`${namespace ?? ''}/${name}`, o.spec.volumeName);
  } else if (o.kind === 'PodDisruptionBudget') {
    const { selector = {}, minAvailable, maxUnavailable } = o.spec ?? {};
    input.budgets.push({ kind: o.kind, namespace, name, selector, minAvailable, maxUnavailable });
  } else if (o.kind === ZONE_DISRUPTION_BUDGET_KIND && o.apiVersion === ROLLOUT_API_VERSION) {
    // while every other zone is whole (a drain of one zone), it allows maxUnavailable of its pods out at once
    const { selector = {}, maxUnavailable } = o.spec ?? {};
    input.budgets.push({ kind: o.kind, namespace, name, selector, maxUnavailable });
  } else if (o.kind === 'StorageClass') {
    const zones = (Array.isArray(o.allowedTopologies) ? o.allowedTopologies : [])
      .flatMap((t: any) => (Array.isArray(t?.matchLabelExpressions) ? t.matchLabelExpressions : []))
      .filter((e: any) => e?.key === topologyKey && Array.isArray(e.values))
      .flatMap((e: any) => e.values as string[]);
    input.storageClasses.push({
      name,
      immediate: (o.volumeBindingMode ?? 'Immediate') === 'Immediate',
      isDefault: o.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true',
      zones: zones.length > 0 ? zones : undefined,
    });
  }
}

/** The workload with the replicas its autoscaler may scale it down to, when one targets it. */
function scaledBy(w: CheckWorkload, autoscalers: readonly CheckAutoscaler[]): CheckWorkload {
  const a = w.replicas === undefined ? undefined : autoscalerFor(autoscalers, w.kind, w.name, w.namespace);
  if (!a) return w;
  const manifest = w.replicasInManifest === undefined ? 'replicas unset'
    : `replicas ${w.replicasInManifest} in the manifest${w.replicasInManifest > a.min ? ', which it may scale down' : ', which it raises'}`;
  return { ...w, replicas: a.min, replicasFrom: `${a.source} (${manifest})` };
}

/** The PersistentVolume (with node affinity) claim `namespace/claim` is bound to: by the claim's volumeName, or the volume's claimRef. */
export function volumeOf(input: CheckInput, namespace: string | undefined, claim: string): CheckVolume | undefined {
  const byName = input.claimVolumes.get(`${namespace ?? ''}/${claim}`);
  return input.volumes.find((v) => (byName !== undefined ? v.name === byName
    : v.claim?.name === claim && (v.claim.namespace ?? '') === (namespace ?? '')));
}

function skipped(what: string, why: string, fix = 'Give it the fields Kubernetes requires; the API server would reject it as it is.'): ZoneFinding {
  return { rule: 'object-skipped', severity: FindingSeverity.WARNING, message: `${what} ${why}: not checked`, fix };
}
