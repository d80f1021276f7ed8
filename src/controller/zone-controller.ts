import { ApiObject, ApiObjectProps, Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct, IConstruct } from 'constructs';
import {
  controllerPodSelector, DEFAULT_CONTROLLER_IMAGE, DEFAULT_CONTROLLER_NAME, DEFAULT_CONTROLLER_NAMESPACE, InstalledZoneController,
  InstalledZoneControllerProps, IZoneController, reconcilersOf, UNGUARDED_NAMESPACES, waitForZoneCommand, webhookEnforcesIn, webhookMayGuard,
} from './controller-reference';
import { CertManagerIssuerKind, WebhookFailurePolicy, WebhookTls, WebhookTlsMode } from './webhook-tls';
import { CONTROLLER_APP_NAME, WELL_KNOWN_HOSTNAME_KEY, WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { ControllerRule, leaderElectionRules, mergeRules } from '../contract/rbac';
import {
  REDIS_MANAGER, REDIS_MANAGER_RULES, REDIS_UNNAMED_CLUSTER_RULES, ZONE_ANNOTATOR, ZONE_ANNOTATOR_RULES, ZONE_AWARE_UPDATE,
  ZONE_AWARE_UPDATE_RULES, ZONE_DISRUPTION_BUDGET, ZONE_DISRUPTION_BUDGET_RULES,
} from '../contract/reconcilers';
import { EVICTION_WEBHOOK_PATH, ROLLOUT_GROUP } from '../contract/rollout';
import { zoneAwareUpdateCrd, zoneDisruptionBudgetCrd } from '../contract/rollout-crds';
import { containerResources } from '../shared/container-resources';
import { invalidProp } from '../shared/errors';
import { KubeProps } from '../shared/kubernetes-props';
import {
  clientPeers, emitNetworkPolicy, NETWORK_POLICY_PROPS, NetworkPolicyOptions,
} from '../shared/network-policy';
import { clusterScoped } from '../shared/object-names';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../shared/pod-security';
import { checkArg, checkProps, Props, PropSpec } from '../shared/props';
import { standardLabels } from '../shared/standard-labels';
import { ZoneTopology } from '../topology/zone-topology';

/** The port of /metrics, /healthz and /readyz. */
const METRICS_PORT = 8080;
/** The controller image's non-root user (distroless `nonroot`). */
const RUN_AS = 65532;
/** The HTTPS port of the admission webhooks in the container. */
const WEBHOOK_PORT = 9443;
/** Where the cert-manager Secret is mounted. */
const TLS_DIR = '/etc/cdk8s-zones/tls';

/** An admission webhook a feature of the controller serves. */
interface ServedWebhook {
  /** The webhook's name in the configuration (a domain-like name). */
  readonly name: string;
  /** The HTTPS path the controller serves it on. */
  readonly path: string;
  readonly rules: k8s.RuleWithOperations[];
  /** The feature whose workloads' namespaces the webhook applies to. */
  readonly feature: string;
}

/** A part of the controller: a reconciler and the rules it needs. */
interface Part {
  readonly name: string;
  readonly rules: readonly ControllerRule[];
  /** The rules it needs in a namespace whose workloads this app does not know (`workloadNamespaces`). */
  readonly unnamedRules?: readonly ControllerRule[];
}

/**
 * Props of `ZoneController`.
 */
export interface ZoneControllerProps {
  /**
   * The namespace the controller runs in (its Deployment, ServiceAccount, Lease).
   *
   * @default 'cdk8s-zones-system'
   */
  readonly namespace?: string;

  /**
   * Whether to synthesize the Namespace. Turn it off when the namespace exists or is managed elsewhere.
   *
   * @default true
   */
  readonly createNamespace?: boolean;

  /**
   * The name of the Deployment, ServiceAccount, Service and Lease (and, prefixed by the namespace, of
   * the ClusterRole).
   *
   * @default 'cdk8s-zones-controller'
   */
  readonly name?: string;

  /**
   * The controller image, built from controller/Dockerfile of this repository (see docs/controller.md).
   *
   * @default ZoneController.DEFAULT_IMAGE
   */
  readonly image?: string;

  /**
   * Controller pods. With 2 or more, leader election makes one run the reconcilers while every replica
   * serves webhooks; they are spread over zones and nodes.
   *
   * @default 2
   */
  readonly replicas?: number;

  /**
   * The zones the controller's replicas spread over, and the node label the zone annotator copies.
   *
   * @default - spread over `topology.kubernetes.io/zone` and `kubernetes.io/hostname`, annotate with the zone label
   */
  readonly topology?: ZoneTopology;

  /**
   * Run the zone annotator: pods labelled `cdk8s-zones.dev/zone-annotation=enabled` get their node's
   * zone as the annotation `cdk8s-zones.dev/zone` (see `ZoneAnnotation`).
   *
   * @default true
   */
  readonly zoneAnnotator?: boolean;

  /**
   * Run the zone-aware-update reconciler, which rolls the workloads named by `ZoneAwareUpdate`
   * resources zone by zone, and emit the ZoneAwareUpdate CRD (unless `installCrds` is false).
   *
   * @default false
   */
  readonly zoneAwareUpdate?: boolean;

  /**
   * Run the zone-disruption-budget reconciler (status of `ZoneDisruptionBudget` resources) and serve
   * its validating webhook on `pods/eviction`; emits the ZoneDisruptionBudget CRD (unless `installCrds`
   * is false) and the webhook configuration. Needs `webhookTls`.
   *
   * @default false
   */
  readonly zoneDisruptionBudget?: boolean;

  /**
   * Run the Redis cluster manager: bootstraps and heals every `ZonalRedisCluster` (pods labelled
   * `cdk8s-zones.dev/redis-cluster`) to its planned layout and writes its state to the ConfigMap
   * `<cluster>-status`. Grants read access to pods, nodes and Secrets, and writes ConfigMaps.
   *
   * @default false
   */
  readonly redisManager?: boolean;

  /**
   * Emit the CRDs of the enabled features. Turn it off when the CRDs are installed apart from the
   * controller (e.g. by `ZoneRolloutCrds` in another chart).
   *
   * @default true
   */
  readonly installCrds?: boolean;

  /**
   * TLS of the admission webhooks: required when an enabled feature serves one, refused otherwise.
   *
   * @default - none (no enabled feature serves a webhook)
   */
  readonly webhookTls?: WebhookTls;

  /**
   * What the API server does when the webhook cannot be reached. `FAIL` never lets a request past the
   * controller's check; the webhook never applies to kube-system or the controller's own namespace, so
   * the cluster and the controller itself can always recover.
   *
   * @default WebhookFailurePolicy.FAIL
   */
  readonly webhookFailurePolicy?: WebhookFailurePolicy;

  /**
   * CPU and memory of each controller container (with a memory limit).
   *
   * @default - requests 50m CPU and 64Mi memory, limit 256Mi memory
   */
  readonly resources?: k8s.ResourceRequirements;

  /**
   * Namespaces whose workloads the enabled features serve besides those of this app's constructs (which are
   * added on their own): ZoneAwareUpdates, ZoneDisruptionBudgets and ZonalRedisClusters made by other apps
   * or by hand. The controller writes only in the namespaces it serves (a Role in each), the eviction
   * webhook guards only those, and the Redis manager looks for clusters only there. In a namespace listed
   * here the Redis manager may read that namespace's Secrets and ConfigMaps, as it cannot know the
   * clusters' names; a cluster in this app gets rights on its own objects only.
   *
   * @default - only the namespaces of this app's constructs
   */
  readonly workloadNamespaces?: string[];

  /**
   * The controller's NetworkPolicy: the webhook port admits any source (the API server calling it has no
   * pod labels); `clients` may scrape /metrics.
   *
   * @default - a NetworkPolicy; /metrics from pods of the controller's namespace
   */
  readonly networkPolicy?: NetworkPolicyOptions;
}

const PROPS: PropSpec<ZoneControllerProps> = {
  namespace: Props.optional(KubeProps.dnsLabel()),
  createNamespace: Props.optional(Props.boolean()),
  name: Props.optional(KubeProps.serviceName()),
  image: Props.optional(KubeProps.image()),
  replicas: Props.optional(Props.integer(1)),
  topology: Props.optional(Props.instanceOf(ZoneTopology)),
  zoneAnnotator: Props.optional(Props.boolean()),
  zoneAwareUpdate: Props.optional(Props.boolean()),
  zoneDisruptionBudget: Props.optional(Props.boolean()),
  redisManager: Props.optional(Props.boolean()),
  installCrds: Props.optional(Props.boolean()),
  webhookTls: Props.optional(Props.instanceOf(WebhookTls)),
  webhookFailurePolicy: Props.optional(Props.enumOf(WebhookFailurePolicy, 'WebhookFailurePolicy')),
  resources: Props.optional(KubeProps.resources()),
  workloadNamespaces: Props.optional(Props.arrayOf(KubeProps.dnsLabel())),
  networkPolicy: Props.optional(Props.struct(NETWORK_POLICY_PROPS, 'NetworkPolicyOptions')),
};

/** The same checks as the installing app's ZoneControllerProps; its workloadNamespaces are required here. */
const INSTALLED_PROPS: PropSpec<InstalledZoneControllerProps> = {
  workloadNamespaces: Props.arrayOf(KubeProps.dnsLabel()),
  namespace: PROPS.namespace,
  name: PROPS.name,
  image: PROPS.image,
  zoneAnnotator: PROPS.zoneAnnotator,
  zoneAwareUpdate: PROPS.zoneAwareUpdate,
  zoneDisruptionBudget: PROPS.zoneDisruptionBudget,
  redisManager: PROPS.redisManager,
  webhookFailurePolicy: PROPS.webhookFailurePolicy,
};

/** What each reconciler needs: its rules (and, for the Redis manager, those in namespaces of unknown clusters). */
const PARTS: { readonly [reconciler: string]: Part } = {
  [ZONE_ANNOTATOR]: { name: ZONE_ANNOTATOR, rules: ZONE_ANNOTATOR_RULES },
  [ZONE_AWARE_UPDATE]: { name: ZONE_AWARE_UPDATE, rules: ZONE_AWARE_UPDATE_RULES },
  [ZONE_DISRUPTION_BUDGET]: { name: ZONE_DISRUPTION_BUDGET, rules: ZONE_DISRUPTION_BUDGET_RULES },
  [REDIS_MANAGER]: { name: REDIS_MANAGER, rules: REDIS_MANAGER_RULES, unnamedRules: REDIS_UNNAMED_CLUSTER_RULES },
};

/** Marks ZoneController instances (recognised by `isZoneController` even across copies of the library). */
const ZONE_CONTROLLER = Symbol.for('cdk8s-zones.ZoneController');

/** The label the API server puts on every namespace, with its name. */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * Installs the cdk8s-zones runtime controller: a Deployment (2 replicas spread over zones, restricted
 * Pod Security, leader election on a Lease), its ServiceAccount with least-privilege RBAC for exactly the
 * enabled reconcilers, a Service for metrics and a PodDisruptionBudget.
 */
export class ZoneController extends Construct implements IZoneController {
  /**
   * The image the controller runs when `image` is not given: the one the release of this package version
   * builds from controller/Dockerfile and pushes, tagged with the version.
   */
  public static readonly DEFAULT_IMAGE = DEFAULT_CONTROLLER_IMAGE;

  /**
   * The controller another app installs (its own `ZoneController`), for the constructs of this app it serves:
   * they name it in their `controller` prop, and each must be in one of its `workloadNamespaces`.
   */
  public static fromInstalled(props: InstalledZoneControllerProps): IZoneController {
    checkProps('ZoneController.fromInstalled', props, INSTALLED_PROPS, 'InstalledZoneControllerProps');
    if (reconcilersOf(props).length === 0) {
      throw invalidProp('ZoneController.fromInstalled', 'zoneAnnotator', props.zoneAnnotator, 'leaves no reconciler enabled: a controller runs at least one');
    }
    return new InstalledZoneController(props);
  }

  /** True when `x` is a ZoneController. */
  public static isZoneController(x: any): x is ZoneController {
    return x !== null && typeof x === 'object' && ZONE_CONTROLLER in x;
  }

  /** The controller's image (also the image of `wait-for-zone` init containers). */
  public readonly image: string;
  /** The controller's namespace. */
  public readonly namespace: string;
  /** The name of its Deployment, ServiceAccount, Service and Lease. */
  public readonly name: string;
  /** The reconcilers it runs, in `--reconcilers` order. */
  public readonly reconcilers: string[];
  /**
   * What the API server does when the eviction webhook cannot be reached.
   *
   * @default - none: no enabled feature serves a webhook
   */
  public readonly webhookFailurePolicy?: WebhookFailurePolicy;

  private readonly parts: readonly Part[];
  private readonly labels: { [key: string]: string };
  private readonly podSelector: { [key: string]: string };
  /** The namespaces whose workloads the controller serves: which features, and the rules it needs there. */
  private readonly served = new Map<string, { features: Set<string>; rules: ControllerRule[] }>();

  constructor(scope: Construct, id: string, props: ZoneControllerProps = {}) {
    super(scope, id);
    const where = `ZoneController '${this.node.path}'`;
    checkProps(where, props, PROPS, 'ZoneControllerProps');
    Object.defineProperty(this, ZONE_CONTROLLER, { value: true });
    this.namespace = props.namespace ?? DEFAULT_CONTROLLER_NAMESPACE;
    this.name = props.name ?? DEFAULT_CONTROLLER_NAME;
    this.image = props.image ?? ZoneController.DEFAULT_IMAGE;
    const replicas = props.replicas ?? 2;

    this.reconcilers = reconcilersOf(props);
    if (this.reconcilers.length === 0) {
      throw invalidProp(where, 'zoneAnnotator', props.zoneAnnotator, 'leaves no reconciler enabled: the controller would do nothing');
    }
    const parts = this.reconcilers.map((r) => PARTS[r]);
    const webhooks: ServedWebhook[] = [];
    const installCrds = props.installCrds ?? true;
    if (installCrds && this.reconcilers.includes(ZONE_AWARE_UPDATE)) clusterScoped(new ApiObject(this, 'zoneawareupdate-crd', zoneAwareUpdateCrd()));
    if (this.reconcilers.includes(ZONE_DISRUPTION_BUDGET)) {
      if (installCrds) clusterScoped(new ApiObject(this, 'zonedisruptionbudget-crd', zoneDisruptionBudgetCrd()));
      webhooks.push({
        name: `pods-eviction.${ROLLOUT_GROUP}`,
        path: EVICTION_WEBHOOK_PATH,
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods/eviction'], scope: 'Namespaced' }],
        feature: ZONE_DISRUPTION_BUDGET,
      });
    }
    this.parts = parts;
    this.webhookFailurePolicy = webhooks.length > 0 ? props.webhookFailurePolicy ?? WebhookFailurePolicy.FAIL : undefined;
    if (webhooks.length === 0 && props.webhookTls) {
      throw invalidProp(where, 'webhookTls', props.webhookTls.mode, 'is set but no enabled feature serves an admission webhook: leave it out');
    }
    if (webhooks.length > 0 && !props.webhookTls) {
      throw invalidProp(where, 'webhookTls', undefined,
        `is required: ${webhooks.map((w) => w.name).join(', ')} must be served over HTTPS; use WebhookTls.certManager() or WebhookTls.selfManaged()`);
    }

    this.labels = standardLabels(CONTROLLER_APP_NAME, this.name, 'controller');
    this.podSelector = controllerPodSelector(this.name);
    const labels = this.labels;
    const selector = this.podSelector;
    const meta = { name: this.name, namespace: this.namespace, labels };

    if (props.createNamespace ?? true) {
      clusterScoped(new k8s.KubeNamespace(this, 'namespace', {
        metadata: { name: this.namespace, labels: standardLabels(CONTROLLER_APP_NAME, this.name, 'namespace') },
      }));
    }
    const serviceAccount = new k8s.KubeServiceAccount(this, 'service-account', { metadata: meta });
    const serving = webhooks.length > 0
      ? this.webhooks(webhooks, props.webhookTls!, this.webhookFailurePolicy!, labels)
      : { args: [], rules: [], volumes: [], mounts: [] };
    const rules = mergeRules([...leaderElectionRules(this.name), ...parts.flatMap((p) => p.rules), ...serving.rules]);
    this.rbac(rules);
    for (const namespace of props.workloadNamespaces ?? []) {
      for (const part of parts) {
        if (part.rules.some((r) => r.scope === 'workloads')) this._serve(part.name, namespace, part.unnamedRules ?? []);
      }
    }
    const redisNamespaces = this.reconcilers.includes(REDIS_MANAGER)
      ? ['--redis-namespaces', Lazy.any({ produce: () => this.servedNamespaces(REDIS_MANAGER).join(',') })]
      : [];

    const zoneKey = props.topology?.topologyKey ?? WELL_KNOWN_ZONE_KEY;
    const hostKey = props.topology?.hostnameKey ?? WELL_KNOWN_HOSTNAME_KEY;
    const fieldEnv = (name: string, fieldPath: string): k8s.EnvVar => ({ name, valueFrom: { fieldRef: { fieldPath } } });
    const probe = (path: string, failureThreshold: number): k8s.Probe => ({
      httpGet: { path, port: k8s.IntOrString.fromString('metrics') }, periodSeconds: 10, timeoutSeconds: 3, failureThreshold,
    });
    new k8s.KubeDeployment(this, 'deployment', {
      metadata: meta,
      spec: {
        replicas,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: serviceAccount.name,
            automountServiceAccountToken: true, // it talks to the API server
            securityContext: restrictedPodSecurity(RUN_AS),
            // Its replicas in different zones, so one survives a zone (a soft zone spread could put both in one); no
            // minDomains, so a cluster with a single zone still runs both. Hosts: soft.
            topologySpreadConstraints: [[zoneKey, 'DoNotSchedule'], [hostKey, 'ScheduleAnyway']].map(([topologyKey, whenUnsatisfiable]) => ({
              topologyKey, maxSkew: 1, whenUnsatisfiable, labelSelector: { matchLabels: selector }, matchLabelKeys: ['pod-template-hash'],
            })),
            containers: [{
              name: 'controller',
              image: this.image,
              args: [
                'run',
                '--reconcilers', this.reconcilers.join(','),
                '--leader-elect',
                '--lease-name', this.name,
                '--topology-keys', zoneKey,
                '--metrics-port', String(METRICS_PORT),
                ...serving.args,
                ...redisNamespaces,
              ],
              env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('POD_NAMESPACE', 'metadata.namespace')],
              ports: [
                { name: 'metrics', containerPort: METRICS_PORT },
                ...(webhooks.length > 0 ? [{ name: 'webhook', containerPort: WEBHOOK_PORT }] : []),
              ],
              volumeMounts: serving.mounts.length > 0 ? serving.mounts : undefined,
              readinessProbe: probe('/readyz', 3),
              livenessProbe: probe('/healthz', 6),
              resources: props.resources ?? containerResources('50m', '64Mi', '256Mi'),
              securityContext: restrictedContainerSecurity(),
            }],
            volumes: serving.volumes.length > 0 ? serving.volumes : undefined,
          },
        },
      },
    });
    new k8s.KubeService(this, 'service', {
      metadata: meta,
      spec: {
        selector,
        ports: [
          { name: 'metrics', port: METRICS_PORT, targetPort: k8s.IntOrString.fromString('metrics') },
          ...(webhooks.length > 0 ? [{ name: 'webhook', port: 443, targetPort: k8s.IntOrString.fromString('webhook') }] : []),
        ],
      },
    });
    emitNetworkPolicy(this, 'network-policy', where, props.networkPolicy, {
      ...meta,
      podSelector: selector,
      ingress: [
        { ports: ['metrics'], from: clientPeers(props.networkPolicy) },
        ...(webhooks.length > 0 ? [{ ports: ['webhook'], from: 'anywhere' as const }] : []),
      ],
    });
    if (replicas > 1) {
      new k8s.KubePodDisruptionBudget(this, 'pdb', {
        metadata: meta,
        spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
      });
    }
    this.node.addValidation({ validate: () => [...this.unservedFeatures(where), ...duplicatesOf(this)] });
  }

  /**
   * Serves the workloads of `feature` in `namespace`: the controller gets the feature's rights there (a Role
   * with its `workloads` rules and `rules`, on the workload's own objects), the eviction webhook guards it,
   * the Redis manager looks there. Called by the constructs that need the feature.
   *
   * @internal
   */
  public _serve(feature: string, namespace: string, rules: readonly ControllerRule[]): void {
    const part = this.parts.find((p) => p.name === feature);
    if (!part) throw new Error(`ZoneController '${this.node.path}' does not run ${feature}`);
    let served = this.served.get(namespace);
    if (!served) {
      served = { features: new Set(), rules: [] };
      this.served.set(namespace, served);
      this.namespaceRole(namespace, served);
    }
    served.features.add(feature);
    served.rules.push(...part.rules.filter((r) => r.scope === 'workloads'), ...rules);
  }

  /**
   * True when the eviction webhook guards the pods of `namespace` and refuses evictions while it cannot be
   * reached (failure policy FAIL), so a ZoneDisruptionBudget there is enforced.
   *
   * @internal
   */
  public _guardsEvictionsIn(namespace: string | undefined): boolean {
    return webhookEnforcesIn(this.webhookFailurePolicy, this.namespace, namespace);
  }

  /**
   * The command of an init container (in `image`) that waits until the zone annotation, projected into
   * the pod by a downward API volume at `file`, is non-empty: `['cdk8s-zones-controller', 'wait-for-zone', ...]`.
   *
   * @param file the path of the downward API item of the annotation `cdk8s-zones.dev/zone`
   * @param timeoutSeconds give up (exit 1) after this long; default 600
   */
  public waitForZoneCommand(file: string, timeoutSeconds?: number): string[] {
    const where = `ZoneController '${this.node.path}'.waitForZoneCommand`;
    checkArg(where, 'file', file, Props.string());
    checkArg(where, 'timeoutSeconds', timeoutSeconds, Props.optional(Props.finiteNumber()));
    if (!file.startsWith('/')) throw invalidProp(where, 'file', file, 'must be an absolute path (where the downward API volume is mounted)');
    if (timeoutSeconds !== undefined && !(timeoutSeconds > 0)) throw invalidProp(where, 'timeoutSeconds', timeoutSeconds, 'must be > 0');
    return waitForZoneCommand(file, timeoutSeconds);
  }

  /**
   * The ValidatingWebhookConfiguration (pointing at the Service) and what its TLS mode needs: cert-manager
   * objects and the mounted Secret, or the self-managed flags and the access to its Secret and caBundle.
   */
  private webhooks(webhooks: ServedWebhook[], tls: WebhookTls, failurePolicy: WebhookFailurePolicy, labels: { [key: string]: string }) {
    const configName = this.clusterWideName();
    const secretName = `${this.name}-webhook-tls`;
    const certificateName = `${this.name}-webhook`;
    const annotations = tls.mode === WebhookTlsMode.CERT_MANAGER ? { 'cert-manager.io/inject-ca-from': `${this.namespace}/${certificateName}` } : undefined;
    clusterScoped(new k8s.KubeValidatingWebhookConfiguration(this, 'webhook-configuration', {
      metadata: { name: configName, labels, annotations },
      webhooks: webhooks.map((w) => ({
        name: w.name,
        clientConfig: { service: { name: this.name, namespace: this.namespace, path: w.path, port: 443 } },
        rules: w.rules,
        failurePolicy,
        // Only the namespaces that hold the feature's workloads, so an outage of the controller blocks
        // evictions of those pods alone. (An object selector cannot do it: it sees the Eviction, which has no labels.)
        namespaceSelector: {
          matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: Lazy.any({ produce: () => this.guardedNamespaces(w.feature) }) as any }],
        },
        // An allowed eviction reserves the pod until the API server deletes it (never on a dry run).
        sideEffects: 'NoneOnDryRun',
        admissionReviewVersions: ['v1'],
        // The webhook may wait out another eviction's reservation (a few seconds) before it answers.
        timeoutSeconds: 10,
      })),
    }));
    if (tls.mode === WebhookTlsMode.SELF_MANAGED) {
      return {
        args: ['--tls-mode', 'self-managed', '--tls-secret', secretName, '--webhook-service', this.name, '--webhook-configurations', configName],
        rules: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['create'], scope: 'controller' },
          { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'update'], scope: 'controller', resourceNames: [secretName] },
          // its own configuration only: patching another webhook's caBundle could weaken that webhook
          { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get', 'patch'], scope: 'cluster', resourceNames: [configName] },
        ] as ControllerRule[],
        volumes: [] as k8s.Volume[],
        mounts: [] as k8s.VolumeMount[],
      };
    }
    let issuer = tls.issuerName;
    let issuerKind = tls.issuerKind ?? CertManagerIssuerKind.ISSUER;
    if (issuer === undefined) {
      issuer = `${this.name}-selfsigned`;
      issuerKind = CertManagerIssuerKind.ISSUER;
      new ApiObject(this, 'issuer', {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: issuer, namespace: this.namespace, labels },
        spec: { selfSigned: {} },
      } as ApiObjectProps);
    }
    new ApiObject(this, 'certificate', {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: certificateName, namespace: this.namespace, labels },
      spec: {
        secretName,
        dnsNames: [`${this.name}.${this.namespace}.svc`, `${this.name}.${this.namespace}.svc.cluster.local`],
        issuerRef: { name: issuer, kind: issuerKind, group: 'cert-manager.io' },
        privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
      },
    } as ApiObjectProps);
    return {
      args: ['--tls-mode', 'files', '--tls-cert-file', `${TLS_DIR}/tls.crt`, '--tls-key-file', `${TLS_DIR}/tls.key`],
      rules: [] as ControllerRule[],
      volumes: [{ name: 'webhook-tls', secret: { secretName } }] as k8s.Volume[],
      mounts: [{ name: 'webhook-tls', mountPath: TLS_DIR, readOnly: true }] as k8s.VolumeMount[],
    };
  }

  /** A ClusterRole for the cluster-wide rules, a Role in the controller's namespace for its own objects. */
  private rbac(rules: ControllerRule[]): void {
    const clusterName = this.clusterWideName();
    const clusterRules = rules.filter((r) => r.scope === 'cluster');
    if (clusterRules.length > 0) {
      const role = new k8s.KubeClusterRole(this, 'cluster-role', { metadata: { name: clusterName, labels: this.labels }, rules: clusterRules.map(toPolicyRule) });
      const binding = new k8s.KubeClusterRoleBinding(this, 'cluster-role-binding', {
        metadata: { name: clusterName, labels: this.labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.name },
        subjects: [this.subject()],
      });
      clusterScoped(role);
      clusterScoped(binding);
    }
    this.role('role', this.name, this.namespace, () => rules.filter((r) => r.scope === 'controller'));
  }

  /** The Role (and its binding) that grants the rules of the features served in `namespace`. */
  private namespaceRole(namespace: string, served: { rules: ControllerRule[] }): void {
    this.role(`role-${namespace}`, this.clusterWideName(), namespace, () => mergeRules(served.rules));
  }

  private role(id: string, name: string, namespace: string, rules: () => ControllerRule[]): void {
    const metadata = { name, namespace, labels: this.labels };
    const role = new k8s.KubeRole(this, id, { metadata, rules: Lazy.any({ produce: () => rules().map(toPolicyRule) }) as any });
    new k8s.KubeRoleBinding(this, `${id}-binding`, {
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.name },
      subjects: [this.subject()],
    });
  }

  /** The controller's ServiceAccount (named as its Deployment). */
  private subject(): k8s.Subject {
    return { kind: 'ServiceAccount', name: this.name, namespace: this.namespace };
  }

  /** The name of what is cluster-wide (the ClusterRole, the webhook configuration) or lives in other namespaces. */
  private clusterWideName(): string {
    return `${this.namespace}-${this.name}`;
  }

  /** The namespaces served for `feature`, sorted. */
  private servedNamespaces(feature: string): string[] {
    return [...this.served].filter(([, s]) => s.features.has(feature)).map(([ns]) => ns).sort();
  }

  /** The namespaces the webhook of `feature` applies to: those served, never the unguarded ones. */
  private guardedNamespaces(feature: string): string[] {
    return this.servedNamespaces(feature).filter((ns) => webhookMayGuard(this.namespace, ns));
  }

  /** Features enabled with no namespace to serve (they could write nowhere), and budgets the webhook cannot guard. */
  private unservedFeatures(where: string): string[] {
    const problems: string[] = [];
    for (const part of this.parts) {
      if (!part.rules.some((r) => r.scope === 'workloads') || this.servedNamespaces(part.name).length > 0) continue;
      problems.push(invalidProp(where, 'workloadNamespaces', undefined,
        `names no namespace, and no construct of this app needs ${part.name}: the controller would be allowed to act nowhere. ` +
        'Add the constructs that use it to this app, name the namespaces of their workloads, or turn the feature off').message);
    }
    const unguarded = this.servedNamespaces(ZONE_DISRUPTION_BUDGET).filter((ns) => !webhookMayGuard(this.namespace, ns));
    if (unguarded.length > 0) {
      problems.push(invalidProp(where, 'namespace', this.namespace,
        `leaves zone disruption budgets in ${unguarded.join(', ')} unguarded: the eviction webhook never applies to ${UNGUARDED_NAMESPACES.join(', ')} ` +
        'or the controller\'s own namespace (so the cluster and the controller can always recover); put the workloads in another namespace').message);
    }
    return problems;
  }
}

function toPolicyRule(r: ControllerRule): k8s.PolicyRule {
  return { apiGroups: r.apiGroups, resources: r.resources, verbs: r.verbs, ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}) };
}

/**
 * Objects this controller emits that something else in the app emits too (a second ZoneController, the
 * CRDs of ZoneRolloutCrds, the user's own Namespace): two manifests of one object, the last one applied wins.
 */
function duplicatesOf(controller: ZoneController): string[] {
  const key = (o: ApiObject) => `${o.apiVersion.split('/')[0]} ${o.kind} ${o.metadata.namespace ?? ''}/${o.name}`;
  const isObject = (c: IConstruct): c is ApiObject => c instanceof ApiObject;
  const own = new Set(controller.node.findAll().filter(isObject));
  const ownKeys = new Set([...own].map(key));
  return controller.node.root.node.findAll().filter(isObject).filter((o) => !own.has(o) && ownKeys.has(key(o))).map((o) =>
    `ZoneController '${controller.node.path}': emits ${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.name}, ` +
    `which '${o.node.path}' emits too: set another namespace or name, installCrds: false, or createNamespace: false`);
}
