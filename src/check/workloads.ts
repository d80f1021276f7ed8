/**
 * The objects of a set of manifests the zone check reads (pure): the workloads with their pod templates, the
 * PodDisruptionBudgets, the StorageClasses their volumes use, and the Services.
 * Anything else is left alone; a malformed object becomes a finding, never an exception.
 */
import { autoscalerFor, autoscalerOf, CheckAutoscaler } from './autoscalers';
import { CheckInput, CheckVolume, CheckWorkload } from './check-input';
import { FindingSeverity, ZoneFinding } from './model';
import { modelFor, partOwnerMissing } from './operator-models/catalog';
import { operatorSystem } from './operator-models/interpret';
import { looksLikeWorkload, operatorWorkloads, stringMap } from './operators';
import { configKey, ConfigTexts, configTexts, containerConfigs } from './quorum-software/pod-config';
import { recogniseQuorum } from './quorum-software/recognisers';
import { readService } from './services';
import { ROLLOUT_API_VERSION, ZONE_DISRUPTION_BUDGET_KIND } from '../contract/rollout';
import { annotatedReplicas, REPLICAS_ANNOTATION } from '../contract/zone-check';
import {
  arrayOf, asResource, elementsOf, isList, KindedResource, KubeResource, NodeSelectorTerm, Pod, PodTemplate,
  Requirement, TypeAndMeta, Workload, WorkloadSpec,
} from '../kubernetes/objects';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../kubernetes/standard-labels';

/** What helps with an operator's resource the check cannot read from the manifests. */
const SKIPPED_OPERATOR_FIX = 'Check what its operator made where it runs: cdk8s-zones check --kubeconfig FILE --live.';

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job', 'CronJob', 'Pod'];
const RUN_TO_COMPLETION = ['Job', 'CronJob'];
const STORAGE_AND_BUDGET_KINDS = ['PersistentVolume', 'PersistentVolumeClaim', 'PodDisruptionBudget', ZONE_DISRUPTION_BUDGET_KIND, 'StorageClass'];

/**
 * A bare Pod that is not restarted (restartPolicy Never or OnFailure: a Helm test, a one-off task) runs to completion.
 */
const runsToCompletion = (o: Workload) => RUN_TO_COMPLETION.includes(o.kind ?? '')
  || (o.kind === 'Pod' && ['Never', 'OnFailure'].includes(String((o as Pod).spec?.restartPolicy)));

/** Reads the manifests (objects; `List`s expanded) the check needs. */
export function readManifests(manifests: readonly unknown[], topologyKey: string): CheckInput {
  const input = emptyInput();
  const objects = manifests.flatMap((m) => {
    const list = asResource(m) as (KubeResource & { readonly items?: unknown }) | undefined;
    return list?.kind === 'List' && Array.isArray(list.items) ? elementsOf(list.items) : [m];
  });
  const autoscalers: CheckAutoscaler[] = [];
  objects.forEach((object, i) => {
    const o = asResource(object);
    if (o === undefined) {
      input.findings.push(skipped(`object ${i}`, 'is not a Kubernetes object (no kind)'));
      return;
    }
    const name = typeof o.metadata?.name === 'string' ? o.metadata.name : undefined;
    const namespace = typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : undefined;
    const what = `${o.kind} ${namespace ? `${namespace}/` : ''}${name ?? `(object ${i}, no name)`}`;
    // what an operator's resource or an autoscaler is (each read once: a custom resource is read in full)
    const mayBeOperatorResource = name !== undefined && !WORKLOAD_KINDS.includes(o.kind);
    if (mayBeOperatorResource && readModelledResource(o, name!, namespace, objects, what, input)) return undefined;
    const placed = mayBeOperatorResource ? operatorWorkloads(o, name, namespace, objects) : undefined;
    const autoscaler = name === undefined || placed !== undefined ? undefined : autoscalerOf(o, name, namespace);
    if (WORKLOAD_KINDS.includes(o.kind)) {
      const workload = builtInWorkload(o as Workload, name, namespace);
      if (typeof workload === 'string') input.findings.push(skipped(what, workload));
      else input.workloads.push(workload);
    } else if (placed !== undefined) {
      if (typeof placed === 'string') input.findings.push(skipped(what, placed));
      else input.workloads.push(...placed);
    } else if (autoscaler !== undefined) {
      if (typeof autoscaler === 'string') input.findings.push(skipped(what, autoscaler));
      else autoscalers.push(autoscaler);
    } else if (name !== undefined && STORAGE_AND_BUDGET_KINDS.includes(o.kind)) {
      readStorageOrBudget(o as StorageOrBudget, name, namespace, topologyKey, input);
    } else if (name !== undefined && ['ConfigMap', 'Secret', 'Service'].includes(o.kind)) {
      readConfigOrService(o, name, namespace, input);
    } else {
      const field = looksLikeWorkload(o);
      if (field !== undefined) {
        input.findings.push(skipped(what, `runs pods (its ${field}), but the check does not know how its operator places them (${o.apiVersion})`,
          SKIPPED_OPERATOR_FIX));
      }
    }
    return undefined;
  });
  const workloads = input.workloads.map((w) => withQuorum(scaledBy(w, autoscalers), input.configTexts));
  return { ...input, workloads };
}

function emptyInput(): CheckInput {
  return {
    workloads: [],
    budgets: [],
    storageClasses: [],
    volumes: [],
    claimVolumes: new Map(),
    services: [],
    configTexts: new Map(),
    systems: [],
    findings: [],
  };
}

/** A ConfigMap's or a Secret's text (consensus software reads its configuration there), a Service. */
function readConfigOrService(o: KindedResource, name: string, namespace: string | undefined, input: CheckInput): void {
  if (o.kind === 'Service') {
    input.services.push(readService(o, name, namespace));
    return;
  }
  const texts = configTexts(o.kind, o as { data?: unknown; stringData?: unknown });
  input.configTexts.set(configKey(namespace, o.kind, name), texts);
}

/**
 * Adds what an operator's resource of a modelled kind stands for (its pod sets, budgets and system; or why it is
 * skipped); false when its kind is not modelled.
 */
function readModelledResource(
  o: KindedResource, name: string, namespace: string | undefined, objects: readonly unknown[], what: string,
  input: CheckInput,
): boolean {
  const model = modelFor(o);
  const part = partOwnerMissing(o, objects);
  if (model === undefined && part === null) return false;
  const read = model !== undefined ? operatorSystem(model, o, name, namespace, objects) : part;
  if (typeof read === 'string') {
    input.findings.push(skipped(what, read, SKIPPED_OPERATOR_FIX));
  } else if (read !== undefined && read !== null) {
    input.workloads.push(...read.workloads);
    input.budgets.push(...read.budgets);
    input.systems.push(read.system);
  }
  return true;
}

/**
 * The replicas a workload's REPLICAS_ANNOTATION says its controller scales it to (`replicas` unset), and that source.
 */
function replicasLeftToController(value: unknown): { replicas?: number; from: string } | undefined {
  if (value === undefined) return undefined;
  const n = annotatedReplicas(value);
  return n !== undefined ? { replicas: n, from: `the ${REPLICAS_ANNOTATION} annotation (replicas unset: its controller scales it)` }
    : { from: `the ${REPLICAS_ANNOTATION} annotation ${JSON.stringify(value)} is not a whole number: 1 assumed (replicas unset)` };
}

/** A built-in workload as the check reads it, or why it is skipped. */
function builtInWorkload(o: Workload, name: string | undefined, namespace: string | undefined): CheckWorkload | string {
  if (name === undefined) return 'has no metadata.name';
  // a CronJob's pods are those of the Job it makes from its jobTemplate; a bare Pod is its own template
  const spec: WorkloadSpec | undefined = o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec
    : o.kind === 'Pod' ? { template: o as PodTemplate } : o.spec;
  const template = spec?.template;
  if (spec === undefined || template === undefined || typeof template.spec !== 'object' || template.spec === null) {
    return 'has no pod template';
  }
  const templates = o.kind === 'StatefulSet' ? arrayOf(spec.volumeClaimTemplates) : [];
  const kind = o.kind ?? '';
  const scaled = kind === 'DaemonSet' || RUN_TO_COMPLETION.includes(kind) || spec.replicas !== undefined ? undefined
    : replicasLeftToController(o.metadata?.annotations?.[REPLICAS_ANNOTATION]);
  const replicas = kind === 'DaemonSet' ? undefined
    : RUN_TO_COMPLETION.includes(kind) ? spec.parallelism ?? 1 : spec.replicas ?? scaled?.replicas ?? 1;
  if (replicas !== undefined && !(Number.isInteger(replicas) && (replicas as number) >= 0)) {
    return `has replicas ${JSON.stringify(replicas)}, not a whole number`;
  }
  return {
    kind,
    namespace,
    name,
    replicas: replicas as number | undefined,
    ...(scaled ? { replicasFrom: scaled.from } : {}),
    replicasInManifest: kind === 'DaemonSet' || RUN_TO_COMPLETION.includes(kind) ? undefined
      : spec.replicas as number | undefined,
    runToCompletion: runsToCompletion(o) || undefined,
    perNode: kind === 'DaemonSet' || undefined,
    fromLibrary: o.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE || undefined,
    podLabels: stringMap(template.metadata?.labels),
    pod: template.spec,
    claimClasses: templates.map((t) => (typeof t?.spec?.storageClassName === 'string'
      ? t.spec.storageClassName : undefined)),
    claimTemplates: templates.map((t) => t?.metadata?.name).filter((n: unknown): n is string => typeof n === 'string'),
    podClaims: arrayOf(template.spec.volumes)
      .map((v) => v?.persistentVolumeClaim?.claimName).filter((n: unknown): n is string => typeof n === 'string'),
    annotations: stringMap(o.metadata?.annotations),
    labels: stringMap(o.metadata?.labels),
  };
}

/** What a PersistentVolume, a claim bound to one, a PodDisruptionBudget or a StorageClass adds to the input. */
/** A PersistentVolume, a PersistentVolumeClaim, a budget or a StorageClass: the fields the check reads. */
interface StorageOrBudget extends TypeAndMeta {
  readonly spec?: {
    readonly nodeAffinity?: { readonly required?: { readonly nodeSelectorTerms?: readonly NodeSelectorTerm[] } };
    readonly claimRef?: { readonly namespace?: string; readonly name?: unknown };
    readonly volumeName?: unknown;
    readonly selector?: unknown;
    readonly minAvailable?: number | string;
    readonly maxUnavailable?: number | string;
  };
  readonly allowedTopologies?: readonly { readonly matchLabelExpressions?: readonly Requirement[] }[];
  readonly volumeBindingMode?: unknown;
}

function readStorageOrBudget(
  o: StorageOrBudget, name: string, namespace: string | undefined, topologyKey: string, input: CheckInput,
): void {
  if (o.kind === 'PersistentVolume') {
    const nodeTerms = o.spec?.nodeAffinity?.required?.nodeSelectorTerms;
    const ref = o.spec?.claimRef;
    if (isList(nodeTerms)) {
      const claim = typeof ref?.name === 'string' ? { namespace: ref.namespace, name: ref.name } : undefined;
      input.volumes.push({ name, nodeTerms, claim });
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
    const zones = arrayOf(o.allowedTopologies)
      .flatMap((t) => arrayOf(t?.matchLabelExpressions))
      .filter((e) => e?.key === topologyKey && Array.isArray(e.values))
      .flatMap((e) => e.values as string[]);
    input.storageClasses.push({
      name,
      immediate: (o.volumeBindingMode ?? 'Immediate') === 'Immediate',
      isDefault: o.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true',
      zones: zones.length > 0 ? zones : undefined,
    });
  }
}

/** Kinds whose pods may run consensus software as voters (a fixed set of pods). */
const QUORUM_KINDS = ['StatefulSet', 'Deployment', 'ReplicaSet'];

/** The workload with the consensus software its pods run, if the check recognises it. */
function withQuorum(w: CheckWorkload, texts: ConfigTexts): CheckWorkload {
  if (!QUORUM_KINDS.includes(w.kind) || w.replicas === undefined) return w;
  const quorum = recogniseQuorum(containerConfigs(w.pod, w.namespace, texts), w.replicas);
  return quorum === undefined ? w : { ...w, quorum };
}

/** The workload with the replicas its autoscaler may scale it down to, when one targets it. */
function scaledBy(w: CheckWorkload, autoscalers: readonly CheckAutoscaler[]): CheckWorkload {
  const a = w.replicas === undefined ? undefined : autoscalerFor(autoscalers, w.kind, w.name, w.namespace);
  if (!a) return w;
  const manifest = w.replicasInManifest === undefined ? 'replicas unset'
    : `replicas ${w.replicasInManifest} in the manifest${w.replicasInManifest > a.min ? ', which it may scale down' : ', which it raises'}`;
  return { ...w, replicas: a.min, replicasFrom: `${a.source} (${manifest})` };
}

/**
 * The PersistentVolume (with node affinity) claim `namespace/claim` is bound to: by the claim's volumeName, or the
 * volume's claimRef.
 */
export function volumeOf(input: CheckInput, namespace: string | undefined, claim: string): CheckVolume | undefined {
  const byName = input.claimVolumes.get(`${namespace ?? ''}/${claim}`);
  return input.volumes.find((v) => (byName !== undefined ? v.name === byName
    : v.claim?.name === claim && (v.claim.namespace ?? '') === (namespace ?? '')));
}

function skipped(what: string, why: string, fix = 'Give it the fields Kubernetes requires; the API server would reject it as it is.'): ZoneFinding {
  return { rule: 'object-skipped', severity: FindingSeverity.WARNING, message: `${what} ${why}: not checked`, fix };
}
