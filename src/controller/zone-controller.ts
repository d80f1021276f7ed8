import { ApiObject, JsonPatch } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { invalidProp } from '../errors';
import { standardLabels } from '../standard-labels';
import { ControllerRule, LEADER_ELECTION_RULES, mergeRules, REDIS_MANAGER_RULES, ZONE_ANNOTATOR_RULES } from './rbac';
import { isDnsLabel } from '../topology/labels';
import { WELL_KNOWN_HOSTNAME_KEY, WELL_KNOWN_ZONE_KEY, ZoneTopology } from '../topology/zone-topology';

/** The port of /metrics, /healthz and /readyz. */
const METRICS_PORT = 8080;
/** The controller image's non-root user (distroless `nonroot`). */
const RUN_AS = 65532;

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
   * Run the Redis cluster manager: bootstraps and heals every `ZonalRedisCluster` (pods labelled
   * `cdk8s-zones.dev/redis-cluster`) to its planned layout and writes its state to the ConfigMap
   * `<cluster>-status`. Grants read access to pods, nodes and Secrets, and writes ConfigMaps.
   *
   * @default false
   */
  readonly redisManager?: boolean;

  /**
   * CPU and memory of each controller container.
   *
   * @default - requests 50m CPU and 64Mi memory, limit 256Mi memory
   */
  readonly resources?: k8s.ResourceRequirements;
}

/**
 * Installs the cdk8s-zones runtime controller: a Deployment (2 replicas spread over zones, restricted
 * Pod Security, leader election on a Lease), its ServiceAccount with least-privilege RBAC for exactly the
 * enabled reconcilers, a Service for metrics and a PodDisruptionBudget.
 */
export class ZoneController extends Construct {
  /** The image the controller runs when `image` is not given; build it from controller/Dockerfile. */
  public static readonly DEFAULT_IMAGE = 'ghcr.io/cdk8s-zones/controller:0.1.0';

  /** The controller's image (also the image of `wait-for-zone` init containers). */
  public readonly image: string;
  /** The controller's namespace. */
  public readonly namespace: string;
  /** The name of its Deployment, ServiceAccount, Service and Lease. */
  public readonly name: string;
  /** The reconcilers it runs, in `--reconcilers` order. */
  public readonly reconcilers: string[];

  constructor(scope: Construct, id: string, props: ZoneControllerProps = {}) {
    super(scope, id);
    const where = `ZoneController '${this.node.path}'`;
    this.namespace = props.namespace ?? 'cdk8s-zones-system';
    this.name = props.name ?? 'cdk8s-zones-controller';
    for (const [prop, value] of [['namespace', this.namespace], ['name', this.name]] as const) {
      if (!isDnsLabel(value)) throw invalidProp(where, prop, value, 'must be a DNS label (lower-case letters, digits and -, at most 63 characters)');
    }
    this.image = props.image ?? ZoneController.DEFAULT_IMAGE;
    if (this.image.trim() === '') throw invalidProp(where, 'image', this.image, `must name an image, e.g. ${ZoneController.DEFAULT_IMAGE}`);
    const replicas = props.replicas ?? 2;
    if (!Number.isInteger(replicas) || replicas < 1) throw invalidProp(where, 'replicas', replicas, 'must be an integer >= 1 (2 for high availability)');

    const parts: Array<{ name: string; rules: readonly ControllerRule[] }> = [];
    if (props.zoneAnnotator ?? true) parts.push({ name: 'zone-annotator', rules: ZONE_ANNOTATOR_RULES });
    if (props.redisManager ?? false) parts.push({ name: 'redis', rules: REDIS_MANAGER_RULES });
    if (parts.length === 0) {
      throw invalidProp(where, 'zoneAnnotator', props.zoneAnnotator, 'leaves no reconciler enabled: the controller would do nothing');
    }
    this.reconcilers = parts.map((p) => p.name);

    const labels = standardLabels('cdk8s-zones-controller', this.name, 'controller');
    const selector = { 'app.kubernetes.io/name': 'cdk8s-zones-controller', 'app.kubernetes.io/instance': this.name };
    const meta = { name: this.name, namespace: this.namespace, labels };

    if (props.createNamespace ?? true) {
      clusterScoped(new k8s.KubeNamespace(this, 'namespace', {
        metadata: { name: this.namespace, labels: standardLabels('cdk8s-zones-controller', this.name, 'namespace') },
      }));
    }
    const serviceAccount = new k8s.KubeServiceAccount(this, 'service-account', { metadata: meta });
    this.rbac(serviceAccount.name, labels, mergeRules([...LEADER_ELECTION_RULES, ...parts.flatMap((p) => p.rules)]));

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
            securityContext: { runAsNonRoot: true, runAsUser: RUN_AS, runAsGroup: RUN_AS, seccompProfile: { type: 'RuntimeDefault' } },
            // Soft spreading: a controller in one surviving zone is better than none.
            topologySpreadConstraints: [zoneKey, hostKey].map((topologyKey) => ({
              topologyKey, maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector }, matchLabelKeys: ['pod-template-hash'],
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
              ],
              env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('POD_NAMESPACE', 'metadata.namespace')],
              ports: [{ name: 'metrics', containerPort: METRICS_PORT }],
              readinessProbe: probe('/readyz', 3),
              livenessProbe: probe('/healthz', 6),
              resources: props.resources ?? {
                requests: { cpu: k8s.Quantity.fromString('50m'), memory: k8s.Quantity.fromString('64Mi') },
                limits: { memory: k8s.Quantity.fromString('256Mi') },
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
            }],
          },
        },
      },
    });
    new k8s.KubeService(this, 'service', {
      metadata: meta,
      spec: { selector, ports: [{ name: 'metrics', port: METRICS_PORT, targetPort: k8s.IntOrString.fromString('metrics') }] },
    });
    if (replicas > 1) {
      new k8s.KubePodDisruptionBudget(this, 'pdb', {
        metadata: meta,
        spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
      });
    }
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
    if (!file.startsWith('/')) throw invalidProp(where, 'file', file, 'must be an absolute path (where the downward API volume is mounted)');
    if (timeoutSeconds !== undefined && !(timeoutSeconds > 0)) throw invalidProp(where, 'timeoutSeconds', timeoutSeconds, 'must be > 0');
    return ['cdk8s-zones-controller', 'wait-for-zone', '--file', file, ...(timeoutSeconds === undefined ? [] : ['--timeout', String(timeoutSeconds)])];
  }

  /** A ClusterRole for the cluster-wide rules, a Role in the controller's namespace for the others. */
  private rbac(serviceAccount: string, labels: { [key: string]: string }, rules: ControllerRule[]): void {
    const subjects = [{ kind: 'ServiceAccount', name: serviceAccount, namespace: this.namespace }];
    const toRule = (r: ControllerRule): k8s.PolicyRule => ({ apiGroups: r.apiGroups, resources: r.resources, verbs: r.verbs });
    const clusterName = `${this.namespace}-${this.name}`;
    const clusterRules = rules.filter((r) => !r.namespaced).map(toRule);
    if (clusterRules.length > 0) {
      const role = new k8s.KubeClusterRole(this, 'cluster-role', { metadata: { name: clusterName, labels }, rules: clusterRules });
      const binding = new k8s.KubeClusterRoleBinding(this, 'cluster-role-binding', {
        metadata: { name: clusterName, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.name },
        subjects,
      });
      clusterScoped(role);
      clusterScoped(binding);
    }
    const role = new k8s.KubeRole(this, 'role', {
      metadata: { name: this.name, namespace: this.namespace, labels }, rules: rules.filter((r) => r.namespaced).map(toRule),
    });
    new k8s.KubeRoleBinding(this, 'role-binding', {
      metadata: { name: this.name, namespace: this.namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.name },
      subjects,
    });
  }
}

/** cdk8s gives every object the chart's namespace; cluster-scoped objects must have none. */
function clusterScoped(obj: ApiObject): void {
  if (obj.metadata.namespace !== undefined) obj.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
}
