/**
 * The controller's pod: `run` with the enabled reconcilers, its replicas in different zones, restricted Pod
 * Security, probed on its metrics port, and what serving the admission webhooks takes.
 */
import { Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { WebhookServing } from './webhook-serving';
import { REDIS_MANAGER } from '../contract/reconcilers';
import { containerResources } from '../kubernetes/container-resources';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../kubernetes/pod-security';

/** The port of /metrics, /healthz and /readyz. */
export const METRICS_PORT = 8080;
/** The controller image's non-root user (distroless `nonroot`). */
const RUN_AS = 65532;
/** The HTTPS port of the admission webhooks in the container. */
const WEBHOOK_PORT = 9443;

/** What the controller's pod runs and how it is told. */
export interface ControllerPodOptions {
  /** The name of the Deployment, ServiceAccount and Lease. */
  readonly name: string;
  readonly image: string;
  /** The reconcilers it runs, in `--reconcilers` order. */
  readonly reconcilers: readonly string[];
  readonly serviceAccountName: string;
  /** The labels its pods are selected by. */
  readonly selector: { [key: string]: string };
  readonly zoneKey: string;
  readonly hostKey: string;
  readonly serving: WebhookServing;
  readonly servesWebhooks: boolean;
  readonly resources?: k8s.ResourceRequirements;
  /** The namespaces the Redis manager looks in, known once the whole app is built. */
  readonly redisNamespaces: () => string[];
  /** The zonal shift leaves shifted zones out of Karpenter's NodePools. */
  readonly shiftKarpenterNodePools: boolean;
  /** The ZoneAutoshift the autoshift acts on, with it. */
  readonly autoshiftPolicy?: string;
}

/** The controller's pod: its replicas spread over zones, restricted, talking to the API server. */
export function controllerPodSpec(o: ControllerPodOptions): k8s.PodSpec {
  return {
    serviceAccountName: o.serviceAccountName,
    automountServiceAccountToken: true, // it talks to the API server
    securityContext: restrictedPodSecurity(RUN_AS),
    // Its replicas in different zones, so one survives a zone (a soft zone spread could put both in one); no
    // minDomains, so a cluster with a single zone still runs both. Hosts: soft.
    topologySpreadConstraints: [[o.zoneKey, 'DoNotSchedule'], [o.hostKey, 'ScheduleAnyway']]
      .map(([topologyKey, whenUnsatisfiable]) => ({
        topologyKey,
        maxSkew: 1,
        whenUnsatisfiable,
        labelSelector: { matchLabels: o.selector },
        matchLabelKeys: ['pod-template-hash'],
      })),
    containers: [controllerContainer(o)],
    volumes: o.serving.volumes.length > 0 ? o.serving.volumes : undefined,
  };
}

/** The controller's container: `run` with the enabled reconcilers and what serving them takes. */
function controllerContainer(o: ControllerPodOptions): k8s.Container {
  const redisNamespaces = o.reconcilers.includes(REDIS_MANAGER)
    ? ['--redis-namespaces', Lazy.any({ produce: () => o.redisNamespaces().join(',') })]
    : [];
  const fieldEnv = (name: string, fieldPath: string): k8s.EnvVar => ({ name, valueFrom: { fieldRef: { fieldPath } } });
  const probe = (path: string, failureThreshold: number): k8s.Probe => ({
    httpGet: { path, port: k8s.IntOrString.fromString('metrics') }, periodSeconds: 10, timeoutSeconds: 3, failureThreshold,
  });
  return {
    name: 'controller',
    image: o.image,
    args: [
      'run',
      '--reconcilers', o.reconcilers.join(','),
      '--leader-elect',
      '--lease-name', o.name,
      '--topology-keys', o.zoneKey,
      '--metrics-port', String(METRICS_PORT),
      ...o.serving.args,
      ...redisNamespaces,
      ...(o.shiftKarpenterNodePools ? ['--shift-karpenter-node-pools'] : []),
      ...(o.autoshiftPolicy ? [`--autoshift-policy=${o.autoshiftPolicy}`] : []),
    ],
    env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('POD_NAMESPACE', 'metadata.namespace')],
    ports: [
      { name: 'metrics', containerPort: METRICS_PORT },
      ...(o.servesWebhooks ? [{ name: 'webhook', containerPort: WEBHOOK_PORT }] : []),
    ],
    volumeMounts: o.serving.mounts.length > 0 ? o.serving.mounts : undefined,
    readinessProbe: probe('/readyz', 3),
    livenessProbe: probe('/healthz', 6),
    resources: o.resources ?? containerResources('50m', '64Mi', '256Mi'),
    securityContext: restrictedContainerSecurity(),
  };
}
