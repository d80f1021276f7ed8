/**
 * Custom resources whose operator runs their pods, placed as the operator places them (pure): what pods it
 * makes, with which labels, and which of the resource's fields reach their pod spec. Each operator's behaviour
 * is cited from its source; anything else that looks like a workload is reported as skipped (`looksLikeWorkload`).
 */
import { CheckWorkload } from './check-input';
import {
  Affinity, arrayOf, ClaimTemplate, Container, JsonObject, KubeResource, NodeAffinity, PodAffinity, PodSpec,
  PodTemplate, TopologySpreadConstraint, Workload,
} from '../kubernetes/objects';

/** A whole number of at least 0 (a count a resource sets). */
function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

/** The fields of a pod spec an operator's resource passes on to its pods as they are. */
interface PodFields {
  readonly resources?: Container['resources'];
  readonly nodeSelector?: PodSpec['nodeSelector'];
  readonly tolerations?: PodSpec['tolerations'];
  readonly topologySpreadConstraints?: readonly PromSpreadConstraint[];
}

/**
 * The workloads a custom resource stands for, why it cannot be placed, or undefined when the check does not know its
 * kind.
 */
export function operatorWorkloads(
  o: KubeResource, name: string, namespace: string | undefined, others: readonly unknown[],
): CheckWorkload[] | string | undefined {
  const group = typeof o.apiVersion === 'string' ? o.apiVersion.split('/')[0] : '';
  const promKind = PROMETHEUS_OPERATOR_KINDS[o.kind ?? ''];
  if (group === 'monitoring.coreos.com' && promKind) return prometheusOperator(o, name, namespace, promKind);
  if (group === 'postgresql.cnpg.io' && o.kind === 'Cluster') return cloudNativePg(o, name, namespace);
  if (group === 'argoproj.io' && o.kind === 'Rollout') return argoRollout(o, name, namespace, others);
  if (group === 'loki.grafana.com' && o.kind === 'LokiStack') return lokiStackIngesters(o, name, namespace);
  return undefined;
}

/**
 * prometheus-operator (github.com/prometheus-operator/prometheus-operator, pkg/prometheus/server, agent,
 * alertmanager, thanos): one StatefulSet per shard (`shards`, default 1; Prometheus and PrometheusAgent) of
 * `replicas` pods (default 1), labelled with the selector labels of makeSelectorLabels (`app.kubernetes.io/name`,
 * `app.kubernetes.io/instance`, `app.kubernetes.io/managed-by: prometheus-operator`, the kind's own name label,
 * `operator.prometheus.io/shard` per shard) over `podMetadata.labels`; the pod spec takes `nodeSelector`,
 * `tolerations`, `affinity`, `topologySpreadConstraints` (with `additionalLabelSelectors` added: OnResource the
 * selector labels but the shard's, OnShard all of them), `resources`, and volumes from
 * `storage.volumeClaimTemplate`. The operator makes no PodDisruptionBudget: the user's select the pods by label.
 */
interface PromKind {
  readonly appName: string;
  /** The kind's own name label (`prometheus: <name>`), if any. */
  readonly nameLabel?: string;
  readonly sharded: boolean;
}

const PROMETHEUS_OPERATOR_KINDS: { readonly [kind: string]: PromKind } = {
  Prometheus: { appName: 'prometheus', nameLabel: 'prometheus', sharded: true },
  PrometheusAgent: { appName: 'prometheus-agent', sharded: true },
  Alertmanager: { appName: 'alertmanager', nameLabel: 'alertmanager', sharded: false },
  ThanosRuler: { appName: 'thanos-ruler', nameLabel: 'thanos-ruler', sharded: false },
};

const SHARD_LABEL = 'operator.prometheus.io/shard';

/** The fields of a prometheus-operator resource's spec the check reads. */
interface PrometheusSpec extends PodFields {
  readonly replicas?: unknown;
  readonly shards?: unknown;
  readonly shardingStrategy?: { readonly mode?: unknown };
  readonly mode?: unknown;
  readonly podMetadata?: { readonly labels?: unknown };
  readonly storage?: { readonly volumeClaimTemplate?: ClaimTemplate };
  readonly affinity?: Affinity;
}

/** A prometheus-operator spread constraint: a pod's, and which selector labels the operator adds to it. */
interface PromSpreadConstraint extends TopologySpreadConstraint {
  readonly additionalLabelSelectors?: unknown;
}

function prometheusOperator(
  o: KubeResource, name: string, namespace: string | undefined, kind: PromKind,
): CheckWorkload[] | string {
  const spec: PrometheusSpec = o.spec ?? {};
  const replicas = spec.replicas ?? 1;
  const shards = kind.sharded ? spec.shards ?? 1 : 1;
  if (!isCount(replicas)) return `has spec.replicas ${JSON.stringify(replicas)}, not a whole number`;
  if (!isCount(shards)) return `has spec.shards ${JSON.stringify(shards)}, not a whole number`;
  if (spec.shardingStrategy?.mode === 'Topology') return 'shards by topology (spec.shardingStrategy.mode Topology), which the check does not model';
  const selector: { [key: string]: string } = {
    'app.kubernetes.io/name': kind.appName,
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': 'prometheus-operator',
    ...(kind.sharded ? { 'operator.prometheus.io/name': name } : {}),
    ...(kind.nameLabel ? { [kind.nameLabel]: name } : {}),
  };
  // as the manifest gives it: a class of another type matches no StorageClass
  const storageClass = spec.storage?.volumeClaimTemplate
    ? [spec.storage.volumeClaimTemplate.spec?.storageClassName as string | undefined] : [];
  const perNode = o.kind === 'PrometheusAgent' && spec.mode === 'DaemonSet';
  return Array.from({ length: shards }, (_, shard) => {
    const own = kind.sharded ? { ...selector, [SHARD_LABEL]: String(shard) } : selector;
    const podLabels = { ...stringMap(spec.podMetadata?.labels), ...own };
    return {
      kind: o.kind as string,
      namespace,
      name: shards > 1 ? `${name} (shard ${shard})` : name,
      replicas: perNode ? undefined : replicas,
      perNode: perNode || undefined,
      podLabels,
      pod: {
        containers: [{ name: kind.appName, resources: spec.resources }],
        nodeSelector: spec.nodeSelector,
        tolerations: spec.tolerations,
        affinity: spec.affinity,
        topologySpreadConstraints: arrayOf(spec.topologySpreadConstraints).map((c) => withAdditionalSelectors(c, own)),
      },
      claimClasses: storageClass,
      claimTemplates: [],
      podClaims: [],
      annotations: stringMap(o.metadata?.annotations),
      labels: stringMap(o.metadata?.labels),
    };
  });
}

/** A spread constraint with the operator's `additionalLabelSelectors` applied (pkg/prometheus/common.go). */
function withAdditionalSelectors(
  c: PromSpreadConstraint | undefined, selectorLabels: { [key: string]: string },
): TopologySpreadConstraint {
  const { additionalLabelSelectors: mode, ...core }: PromSpreadConstraint = c ?? {};
  if (mode !== 'OnResource' && mode !== 'OnShard') return core;
  const added = Object.fromEntries(Object.entries(selectorLabels).filter(([k]) => mode === 'OnShard' || k !== SHARD_LABEL));
  const matchLabels = { ...core.labelSelector?.matchLabels, ...added };
  return { ...core, labelSelector: { ...core.labelSelector, matchLabels } };
}

/**
 * CloudNativePG (github.com/cloudnative-pg/cloudnative-pg, api/v1/cluster_types.go, pkg/specs/pods.go):
 * `instances` pods (default 1) labelled `cnpg.io/cluster: <name>` and `cnpg.io/podRole: instance`; `affinity`
 * sets nodeSelector, tolerations and node affinity, and the operator's own pod anti-affinity to the cluster's
 * instances on `affinity.topologyKey` (default kubernetes.io/hostname), preferred unless `podAntiAffinityType`
 * is required, none when `enablePodAntiAffinity` is false; `topologySpreadConstraints` as written; a volume per
 * instance of `storage.storageClass`. A surviving instance is promoted, so the cluster needs one.
 */
/** The fields of a CloudNativePG Cluster's spec the check reads. */
interface CnpgSpec {
  readonly instances?: unknown;
  readonly resources?: Container['resources'];
  readonly topologySpreadConstraints?: PodSpec['topologySpreadConstraints'];
  readonly storage?: { readonly storageClass?: unknown };
  readonly affinity?: {
    readonly topologyKey?: string;
    readonly enablePodAntiAffinity?: boolean;
    readonly podAntiAffinityType?: string;
    readonly additionalPodAntiAffinity?: PodAffinity;
    readonly additionalPodAffinity?: PodAffinity;
    readonly nodeAffinity?: NodeAffinity;
    readonly nodeSelector?: PodSpec['nodeSelector'];
    readonly tolerations?: PodSpec['tolerations'];
  };
}

function cloudNativePg(o: KubeResource, name: string, namespace: string | undefined): CheckWorkload[] | string {
  const spec: CnpgSpec = o.spec ?? {};
  const instances = spec.instances ?? 1;
  if (!isCount(instances)) return `has spec.instances ${JSON.stringify(instances)}, not a whole number`;
  const podLabels = { 'cnpg.io/cluster': name, 'cnpg.io/podRole': 'instance' };
  const a = spec.affinity ?? {};
  const term = {
    labelSelector: {
      matchExpressions: Object.entries(podLabels).map(([key, value]) => ({ key, operator: 'In', values: [value] })),
    },
    topologyKey: a.topologyKey || 'kubernetes.io/hostname',
  };
  const generated: PodAffinity = a.enablePodAntiAffinity === false ? {}
    : a.podAntiAffinityType === 'required' ? { requiredDuringSchedulingIgnoredDuringExecution: [term] }
      : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] };
  const extra = a.additionalPodAntiAffinity ?? {};
  const antiAffinity = {
    requiredDuringSchedulingIgnoredDuringExecution: [
      ...generated.requiredDuringSchedulingIgnoredDuringExecution ?? [],
      ...extra.requiredDuringSchedulingIgnoredDuringExecution ?? [],
    ],
    preferredDuringSchedulingIgnoredDuringExecution: [
      ...generated.preferredDuringSchedulingIgnoredDuringExecution ?? [],
      ...extra.preferredDuringSchedulingIgnoredDuringExecution ?? [],
    ],
  };
  return [{
    kind: 'Cluster',
    namespace,
    name,
    replicas: instances,
    podLabels,
    pod: {
      containers: [{ name: 'postgres', resources: spec.resources }],
      nodeSelector: a.nodeSelector,
      tolerations: a.tolerations,
      affinity: { nodeAffinity: a.nodeAffinity, podAffinity: a.additionalPodAffinity, podAntiAffinity: antiAffinity },
      topologySpreadConstraints: spec.topologySpreadConstraints,
    },
    claimClasses: [typeof spec.storage?.storageClass === 'string' ? spec.storage.storageClass : undefined],
    claimTemplates: [],
    podClaims: [],
    annotations: stringMap(o.metadata?.annotations),
    labels: stringMap(o.metadata?.labels),
  }];
}

/**
 * Argo Rollouts (github.com/argoproj/argo-rollouts, docs/features/specification.md): a Rollout runs `replicas`
 * pods (default 1) of its `template`, or of the Deployment its `workloadRef` names (same namespace).
 */
/** The fields of an Argo Rollout's spec the check reads. */
interface RolloutSpec {
  readonly replicas?: unknown;
  readonly template?: PodTemplate;
  readonly workloadRef?: { readonly kind?: string; readonly name?: string };
}

function argoRollout(
  o: KubeResource, name: string, namespace: string | undefined, others: readonly unknown[],
): CheckWorkload[] | string {
  const spec: RolloutSpec = o.spec ?? {};
  const replicas = spec.replicas ?? 1;
  if (!isCount(replicas)) return `has spec.replicas ${JSON.stringify(replicas)}, not a whole number`;
  let template = spec.template;
  if (template?.spec === undefined && spec.workloadRef) {
    const ref = spec.workloadRef;
    const target = (others as readonly (Workload | undefined)[]).find((d) => d?.kind === (ref.kind ?? 'Deployment')
      && d?.metadata?.name === ref.name && d?.metadata?.namespace === namespace);
    if (!target) return `takes its pod template from ${ref.kind ?? 'Deployment'} ${ref.name} (workloadRef), which is not in the input`;
    template = target.spec?.template;
  }
  if (typeof template?.spec !== 'object' || template.spec === null) return 'has no pod template';
  return [{
    kind: 'Rollout',
    namespace,
    name,
    replicas,
    replicasInManifest: spec.replicas as number | undefined,
    podLabels: stringMap(template.metadata?.labels),
    pod: template.spec,
    claimClasses: [],
    claimTemplates: [],
    podClaims: arrayOf(template.spec.volumes)
      .map((v) => v?.persistentVolumeClaim?.claimName).filter((n: unknown): n is string => typeof n === 'string'),
    annotations: stringMap(o.metadata?.annotations),
    labels: stringMap(o.metadata?.labels),
  }];
}

/**
 * A LokiStack's ingesters, as the Loki operator places them: a StatefulSet of `spec.template.ingester.replicas`
 * pods labelled with the component and instance, one DoNotSchedule spread constraint per `spec.replication.zones`
 * entry, volumes from `spec.storageClassName`; a write needs a quorum of each stream's `replication.factor`
 * replicas. Or why it cannot be placed from the manifest alone.
 */
/** The fields of a LokiStack's spec the check reads. */
interface LokiStackSpec {
  readonly template?: { readonly ingester?: { readonly replicas?: unknown } };
  readonly replication?: {
    readonly factor?: unknown;
    readonly zones?: readonly { readonly topologyKey?: string; readonly maxSkew?: number }[];
  };
  readonly replicationFactor?: unknown;
  readonly storageClassName?: unknown;
}

function lokiStackIngesters(o: KubeResource, name: string, namespace: string | undefined): CheckWorkload[] | string {
  const spec: LokiStackSpec | undefined = o.spec;
  const replicas = spec?.template?.ingester?.replicas;
  if (!isCount(replicas)) {
    return 'sets no spec.template.ingester.replicas: its ingesters come from the operator\'s size table, which the check does not know';
  }
  const factor = spec?.replication?.factor ?? spec?.replicationFactor ?? 1;
  const podLabels = { 'app.kubernetes.io/component': 'ingester', 'app.kubernetes.io/instance': name };
  const zones = arrayOf(spec?.replication?.zones);
  return [{
    kind: 'LokiStack',
    namespace,
    name: `${name} (ingesters)`,
    replicas,
    podLabels,
    pod: {
      containers: [],
      topologySpreadConstraints: zones.map((z) => ({
        topologyKey: z?.topologyKey,
        maxSkew: z?.maxSkew ?? 1,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: podLabels },
      })),
    },
    claimClasses: [typeof spec?.storageClassName === 'string' ? spec.storageClassName : undefined],
    claimTemplates: [],
    podClaims: [],
    annotations: {},
    labels: {},
    ringReplicationFactor: Number.isInteger(factor) && (factor as number) >= 1 ? factor as number : 1,
  }];
}

/** API groups of Kubernetes itself: their kinds are known to be workloads or not. */
const KUBERNETES_GROUP = /(^|\.)k8s\.io$|^(apps|batch|policy|autoscaling|v1)$/;

/** The spec fields that say an object runs pods. */
const WORKLOAD_FIELDS = new Set(['replicas', 'replicaCount', 'instances', 'numInstances', 'shards', 'parallelism', 'podTemplate', 'nodeSets']);

/**
 * Kinds of widely used operators that run pods even when their spec names no count (their defaults do), and that
 * the check does not model (operator-models/ reads those it does): the VictoriaMetrics, Strimzi, M3, OpenSearch,
 * Elastic, KEDA and CloudNativePG resources that make pods.
 */
const POD_RUNNING_KINDS: { readonly [group: string]: readonly string[] } = {
  'operator.victoriametrics.com': ['VMAgent', 'VMAlert', 'VMAlertmanager', 'VMAuth', 'VMSingle', 'VLogs', 'VLSingle', 'VLCluster'],
  'kafka.strimzi.io': ['KafkaConnect', 'KafkaBridge', 'KafkaMirrorMaker2'],
  'operator.m3db.io': ['M3DBCluster'],
  'opensearch.opster.io': ['OpenSearchCluster'],
  'kibana.k8s.elastic.co': ['Kibana'],
  'keda.sh': ['ScaledJob'],
  'postgresql.cnpg.io': ['Pooler'],
};

/**
 * Where a custom resource the check does not model shows that it runs pods (a pod template, a replica count,
 * within three levels of its spec, e.g. `spec.kafka.replicas`; or a kind known to run pods, named `its kind`);
 * undefined when it does not look like a workload.
 */
export function looksLikeWorkload(o: KubeResource): string | undefined {
  const group = typeof o.apiVersion === 'string' && o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : 'v1';
  if (KUBERNETES_GROUP.test(group)) return undefined;
  const search = (value: unknown, path: string, depth: number): string | undefined => {
    if (typeof value !== 'object' || value === null || depth > 3) return undefined;
    if (Array.isArray(value)) {
      return value.map((child, i) => search(child, `${path}[${i}]`, depth + 1)).find((f) => f !== undefined);
    }
    const v = value as JsonObject & { readonly template?: PodTemplate };
    if (typeof v.template?.spec === 'object' && Array.isArray(v.template.spec?.containers)) return `${path}.template`;
    for (const [k, child] of Object.entries(v)) {
      if (WORKLOAD_FIELDS.has(k) && (typeof child === 'number' || typeof child === 'object')) return `${path}.${k}`;
    }
    for (const [k, child] of Object.entries(v)) {
      const found = search(child, `${path}.${k}`, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return search(o.spec, 'spec', 1) ?? (POD_RUNNING_KINDS[group]?.includes(o.kind ?? '') ? 'kind' : undefined);
}

/** The string-valued entries of a labels or annotations map (anything else is dropped). */
export function stringMap(value: unknown): { [key: string]: string } {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as { [key: string]: string };
}
