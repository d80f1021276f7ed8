import { ApiObject, Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct, IConstruct } from 'constructs';
import { duplicatesOf, twinErrors, warnOfUnpublishedImage } from './app-checks';
import { emitAutoshift } from './autoshift';
import { exposeController } from './controller-exposure';
import { Part, partsOf } from './controller-parts';
import { controllerPodSpec } from './controller-pod';
import {
  controllerPodSelector, DEFAULT_CONTROLLER_IMAGE, DEFAULT_CONTROLLER_NAME, DEFAULT_CONTROLLER_NAMESPACE,
  InstalledZoneController, InstalledZoneControllerProps, isServingZoneController, IZoneController, reconcilersOf,
  UNGUARDED_NAMESPACES, waitForZoneCommand, webhookEnforcesIn, webhookMayGuard, ZONE_CONTROLLER_MARK,
} from './controller-reference';
import { karpenterNodePoolRules } from './karpenter-node-pools';
import { recoverFromLostZone } from './lost-zone-recovery';
import { checkWebhookTls, NO_WEBHOOKS, ServedWebhook, serveWebhooks, WebhookServing } from './webhook-serving';
import { WebhookFailurePolicy } from './webhook-tls';
import { INSTALLED_CONTROLLER_PROPS, ZONE_CONTROLLER_PROPS, ZoneControllerProps } from './zone-controller-props';
import { addZoneShiftGate } from './zone-shift-gate';
import { CONTROLLER_APP_NAME, WELL_KNOWN_HOSTNAME_KEY, WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { ControllerRule, leaderElectionRules, mergeRules, policyRuleOf } from '../contract/rbac';
import { REDIS_MANAGER, ZONE_AWARE_UPDATE, ZONE_DISRUPTION_BUDGET, ZONE_SHIFT } from '../contract/reconcilers';
import { EVICTION_WEBHOOK_PATH, ROLLOUT_GROUP } from '../contract/rollout';
import { zoneAwareUpdateCrd, zoneDisruptionBudgetCrd } from '../contract/rollout-crds';
import { zoneShiftCrd } from '../contract/zone-shift-crd';
import { clusterScoped } from '../kubernetes/object-names';
import { standardLabels } from '../kubernetes/standard-labels';
import { MonitoredComponent } from '../monitoring/monitored';
import { invalidProp } from '../shared/errors';
import { checkArg, checkProps, Props } from '../shared/props';


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
    checkProps('ZoneController.fromInstalled', props, INSTALLED_CONTROLLER_PROPS, 'InstalledZoneControllerProps');
    if (reconcilersOf(props).length === 0) {
      throw invalidProp('ZoneController.fromInstalled', 'zoneAnnotator', props.zoneAnnotator, 'leaves no reconciler enabled: a controller runs at least one');
    }
    return new InstalledZoneController(props);
  }

  /**
   * Opts `workload` (a Deployment, StatefulSet, DaemonSet or ReplicaSet, cdk8s-plus or raw) in to the zonal shift's
   * traffic part: its pods name the readiness gate `cdk8s-zones.dev/zone-in-service`, which `controller` keeps True
   * but in a zone a ZoneShift takes out of service, where the pods then leave their Services' endpoints.
   * `controller` must run the zone annotator and the zonal shift (`zoneShift: true`): without them the pods never
   * become Ready. The controller is then on the pods' readiness path (docs/runbooks/zone-impaired.md).
   */
  public static addZoneShiftGate(workload: IConstruct, controller: IZoneController): void {
    addZoneShiftGate(workload, controller);
  }

  /**
   * Opts `statefulSet` (cdk8s-plus or raw) in to the lost-zone recovery of `controller` (which runs
   * `lostZoneRecovery`): when a ZoneShift declares its zone lost and none of the zone's nodes answers, its pods there
   * are deleted with their claims in that zone, at most `atOnce` at a time, and come back in the surviving zones
   * with empty volumes. Only for data replicated to its other pods (a database's replicas, a quorum's members):
   * the recovery deletes the lost zone's copy. `atOnce` is what its quorum allows (from 1 to its replicas less 1).
   *
   * A StatefulSet pinned to one zone (by a required node affinity term on a well-known zone label), one of a zone
   * group (`cdk8s-zones.dev/zone-group`: a StatefulSet per zone, each opted in), comes back on the other zones' nodes:
   * its template gets the zone's stand-in term (ORed), the controller labels those nodes, and `atOnce` may be all of
   * its replicas (the lost zone's copy is gone anyway; its zone group's other StatefulSets hold the data).
   */
  public static recoverFromLostZone(statefulSet: IConstruct, controller: IZoneController, atOnce: number): void {
    recoverFromLostZone(statefulSet, controller, atOnce);
  }

  /** True when `x` is a ZoneController. */
  public static isZoneController(x: unknown): x is ZoneController {
    return isServingZoneController(x);
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
  /** What a Prometheus that monitors the controller scrapes and alerts on. */
  private readonly monitored: () => MonitoredComponent;
  /** The namespaces whose workloads the controller serves: which features, and the rules it needs there. */
  private readonly served = new Map<string, { features: Set<string>; rules: ControllerRule[] }>();

  constructor(scope: Construct, id: string, props: ZoneControllerProps = {}) {
    super(scope, id);
    const where = `ZoneController '${this.node.path}'`;
    checkProps(where, props, ZONE_CONTROLLER_PROPS, 'ZoneControllerProps');
    Object.defineProperty(this, ZONE_CONTROLLER_MARK, { value: true });
    this.namespace = props.namespace ?? DEFAULT_CONTROLLER_NAMESPACE;
    this.name = props.name ?? DEFAULT_CONTROLLER_NAME;
    this.image = props.image ?? ZoneController.DEFAULT_IMAGE;
    if (props.image === undefined) warnOfUnpublishedImage(this);
    const replicas = props.replicas ?? 2;

    this.reconcilers = reconcilersOf(props);
    if (this.reconcilers.length === 0) {
      throw invalidProp(where, 'zoneAnnotator', props.zoneAnnotator, 'leaves no reconciler enabled: the controller would do nothing');
    }
    const parts = partsOf(where, this.reconcilers);
    const nodePoolRules = karpenterNodePoolRules(where, props, this.reconcilers);
    const installCrds = props.installCrds ?? true;
    const webhooks = this.crdsAndWebhooks(installCrds);
    if (props.autoshift) emitAutoshift(this, where, this.reconcilers, this.meta(), props.autoshift, installCrds);
    this.parts = parts;
    const servesWebhooks = webhooks.length > 0;
    this.webhookFailurePolicy = servesWebhooks ? props.webhookFailurePolicy ?? WebhookFailurePolicy.FAIL : undefined;
    checkWebhookTls(where, props.webhookTls, webhooks);

    this.labels = standardLabels(CONTROLLER_APP_NAME, this.name, 'controller');
    this.podSelector = controllerPodSelector(this.name);
    if (props.createNamespace ?? true) {
      clusterScoped(new k8s.KubeNamespace(this, 'namespace', {
        metadata: { name: this.namespace, labels: standardLabels(CONTROLLER_APP_NAME, this.name, 'namespace') },
      }));
    }
    const serviceAccount = new k8s.KubeServiceAccount(this, 'service-account', { metadata: this.meta() });
    const serving = this.webhookServing(props, webhooks);
    this.rbac(mergeRules([
      ...leaderElectionRules(this.name), ...parts.flatMap((p) => p.rules), ...nodePoolRules, ...serving.rules,
    ]));
    this.serveWorkloadNamespaces(props.workloadNamespaces ?? []);
    this.deployment(props, replicas, serviceAccount.name, serving, servesWebhooks);
    const exposed = { where, replicas, servesWebhooks, podSelector: this.podSelector };
    this.monitored = exposeController(this, { ...this.meta(), ...exposed, networkPolicy: props.networkPolicy });
    this.node.addValidation({
      validate: () => twinErrors(this) ?? [...this.unservedFeatures(where), ...duplicatesOf(this)],
    });
  }

  /** The webhooks' Service, configuration and certificate, when a feature serves one. */
  private webhookServing(props: ZoneControllerProps, webhooks: ServedWebhook[]): WebhookServing {
    if (webhooks.length === 0) return NO_WEBHOOKS;
    return serveWebhooks(this, {
      name: this.name,
      namespace: this.namespace,
      configName: this.clusterWideName(),
      labels: this.labels,
      webhooks,
      tls: props.webhookTls!,
      failurePolicy: this.webhookFailurePolicy!,
      guardedNamespaces: (feature) => this.guardedNamespaces(feature),
    });
  }

  /** The namespaces of workloads this app does not know: every feature that acts on workloads serves them. */
  private serveWorkloadNamespaces(namespaces: readonly string[]): void {
    const workloadParts = this.parts.filter((p) => p.rules.some((r) => r.scope === 'workloads'));
    for (const namespace of namespaces) {
      for (const part of workloadParts) this._serve(part.name, namespace, part.unnamedRules ?? []);
    }
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
   * What a Prometheus that monitors the controller scrapes and alerts on (`TopologyShardedPrometheus.monitor`).
   *
   * @internal
   */
  public _monitoring(): MonitoredComponent {
    return this.monitored();
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

  /** The name, namespace and labels of the controller's own namespaced objects. */
  private meta(): { name: string; namespace: string; labels: { [key: string]: string } } {
    return { name: this.name, namespace: this.namespace, labels: this.labels };
  }

  /** The controller's Deployment: its replicas spread over zones, restricted, probed on its metrics port. */
  private deployment(
    props: ZoneControllerProps,
    replicas: number,
    serviceAccountName: string,
    serving: WebhookServing,
    servesWebhooks: boolean,
  ): void {
    const spec = controllerPodSpec({
      name: this.name,
      image: this.image,
      reconcilers: this.reconcilers,
      serviceAccountName,
      selector: this.podSelector,
      zoneKey: props.topology?.topologyKey ?? WELL_KNOWN_ZONE_KEY,
      hostKey: props.topology?.hostnameKey ?? WELL_KNOWN_HOSTNAME_KEY,
      serving,
      servesWebhooks,
      resources: props.resources,
      redisNamespaces: () => this.servedNamespaces(REDIS_MANAGER),
      shiftKarpenterNodePools: props.zoneShiftKarpenterNodePools ?? false,
      autoshiftPolicy: props.autoshift ? this.name : undefined,
    });
    new k8s.KubeDeployment(this, 'deployment', {
      metadata: this.meta(),
      spec: {
        replicas,
        selector: { matchLabels: this.podSelector },
        template: { metadata: { labels: this.labels }, spec },
      },
    });
  }

  /** The CRDs of the enabled features (unless installed elsewhere), and the admission webhooks they serve. */
  private crdsAndWebhooks(installCrds: boolean): ServedWebhook[] {
    const webhooks: ServedWebhook[] = [];
    if (installCrds && this.reconcilers.includes(ZONE_AWARE_UPDATE)) {
      clusterScoped(new ApiObject(this, 'zoneawareupdate-crd', zoneAwareUpdateCrd()));
    }
    if (installCrds && this.reconcilers.includes(ZONE_SHIFT)) clusterScoped(new ApiObject(this, 'zoneshift-crd', zoneShiftCrd()));
    if (this.reconcilers.includes(ZONE_DISRUPTION_BUDGET)) {
      if (installCrds) clusterScoped(new ApiObject(this, 'zonedisruptionbudget-crd', zoneDisruptionBudgetCrd()));
      webhooks.push({
        name: `pods-eviction.${ROLLOUT_GROUP}`,
        path: EVICTION_WEBHOOK_PATH,
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods/eviction'], scope: 'Namespaced' }],
        feature: ZONE_DISRUPTION_BUDGET,
      });
    }
    return webhooks;
  }

  /** A ClusterRole for the cluster-wide rules, a Role in the controller's namespace for its own objects. */
  private rbac(rules: ControllerRule[]): void {
    const clusterName = this.clusterWideName();
    const clusterRules = rules.filter((r) => r.scope === 'cluster');
    if (clusterRules.length > 0) {
      const role = new k8s.KubeClusterRole(this, 'cluster-role', {
        metadata: { name: clusterName, labels: this.labels },
        rules: clusterRules.map(policyRuleOf),
      });
      const binding = new k8s.KubeClusterRoleBinding(this, 'cluster-role-binding', {
        metadata: { name: clusterName, labels: this.labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.name },
        subjects: [this.subject()],
      });
      clusterScoped(role);
      clusterScoped(binding);
    }
    this.role('role', this.name, this.namespace, () => rules.filter((r) => r.scope === 'controller'));
    const namespaced = rules.filter((r) => r.scope === 'namespace');
    for (const ns of new Set(namespaced.map((r) => r.namespace!))) {
      this.role(`role-in-${ns}`, this.clusterWideName(), ns, () => namespaced.filter((r) => r.namespace === ns));
    }
  }

  /** The Role (and its binding) that grants the rules of the features served in `namespace`. */
  private namespaceRole(namespace: string, served: { rules: ControllerRule[] }): void {
    this.role(`role-${namespace}`, this.clusterWideName(), namespace, () => mergeRules(served.rules));
  }

  private role(id: string, name: string, namespace: string, rules: () => ControllerRule[]): void {
    const metadata = { name, namespace, labels: this.labels };
    // the rules are known once every feature has registered: resolved at synthesis
    const lazyRules = Lazy.any({ produce: () => rules().map(policyRuleOf) }) as unknown as k8s.PolicyRule[];
    const role = new k8s.KubeRole(this, id, { metadata, rules: lazyRules });
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
    const unguarded = this.servedNamespaces(ZONE_DISRUPTION_BUDGET)
      .filter((ns) => !webhookMayGuard(this.namespace, ns));
    if (unguarded.length > 0) {
      problems.push(invalidProp(where, 'namespace', this.namespace,
        `leaves zone disruption budgets in ${unguarded.join(', ')} unguarded: the eviction webhook never applies to ${UNGUARDED_NAMESPACES.join(', ')} ` +
        'or the controller\'s own namespace (so the cluster and the controller can always recover); put the workloads in another namespace').message);
    }
    return problems;
  }
}
