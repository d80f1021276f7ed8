/**
 * The pod of a Loki component in the direct output: its Loki container (`-target=` the component), the zone
 * it is told (a flag for per-zone StatefulSets, else the environment), where it may run and how it spreads.
 */
import { k8s } from 'cdk8s-plus-28';
import { LokiComponent, ResolvedLoki } from './options';
import { CONFIG_HASH_ANNOTATION, ZONE_LABEL } from '../contract/labels';
import { containerResources } from '../kubernetes/container-resources';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../kubernetes/pod-security';
import { standardLabels } from '../kubernetes/standard-labels';
import { zoneRequirements } from '../topology/affinity';
import { hostSpreadConstraint, RevisionLabel, SpreadTarget, zoneSpreadConstraint } from '../topology/spread';
import { ZoneSource, ZoneSourceKind, ZoneWiring, zoneWiring } from '../zone-source/zone-source';

export const HTTP_PORT = 3100;
export const GRPC_PORT = 9095;
export const MEMBERLIST_PORT = 7946;
/** The environment variable Loki expands into `common.ring.instance_availability_zone`. */
export const ZONE_ENV = 'INSTANCE_AVAILABILITY_ZONE';
/** The flag that sets `common.ring.instance_availability_zone` (flags override the file). */
export const ZONE_FLAG = '-common.storage.ring.instance-availability-zone';
/** Where Loki keeps its data (the ingesters' on a claim, the others' in an emptyDir). */
export const DATA_DIR = '/var/loki';
const CONFIG_DIR = '/etc/loki';
/** The Loki image's user (grafana/loki runs as 10001). */
const LOKI_UID = 10001;

/** Components that join a ring or serve ring-aware reads, so they are told their zone and spread over zones. */
const ZONE_AWARE = new Set<LokiComponent>([
  LokiComponent.DISTRIBUTOR, LokiComponent.INGESTER, LokiComponent.QUERIER, LokiComponent.QUERY_FRONTEND,
  LokiComponent.INDEX_GATEWAY, LokiComponent.RULER,
]);

/** The labels a component's pods are selected by (and counted by in its spread constraints). */
export function selectorOf(p: ResolvedLoki, c: LokiComponent): { [key: string]: string } {
  return { 'app.kubernetes.io/instance': p.name, 'app.kubernetes.io/component': c };
}

/** A component's Loki container: `-target=` the component, the zone as a flag (`staticZone`) or in `env`. */
function lokiContainer(
  p: ResolvedLoki, c: LokiComponent, staticZone: string | undefined, env: k8s.EnvVar[],
): k8s.Container {
  return {
    name: c,
    image: p.image,
    args: [
      `-config.file=${CONFIG_DIR}/config.yaml`, `-target=${c}`, '-config.expand-env=true',
      ...(staticZone === undefined ? [] : [`${ZONE_FLAG}=${staticZone}`]),
    ],
    env: env.length > 0 ? env : undefined,
    ports: [
      { name: 'http', containerPort: HTTP_PORT },
      { name: 'grpc', containerPort: GRPC_PORT },
      { name: 'memberlist', containerPort: MEMBERLIST_PORT },
    ],
    readinessProbe: {
      httpGet: { path: '/ready', port: k8s.IntOrString.fromString('http') },
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 1,
    },
    // Not /ready: an ingester replaying its WAL or joining the ring is alive but not ready.
    livenessProbe: {
      tcpSocket: { port: k8s.IntOrString.fromString('http') },
      initialDelaySeconds: 30,
      periodSeconds: 30,
      failureThreshold: 5,
    },
    resources: c === LokiComponent.INGESTER ? p.ingesterResources : p.resources,
    securityContext: restrictedContainerSecurity(),
    volumeMounts: [
      { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
      { name: 'data', mountPath: DATA_DIR },
      { name: 'tmp', mountPath: '/tmp' },
    ],
  };
}

/**
 * The pod template of a component (of one zone's ingesters when `zone` is given): told its zone when it is
 * zone-aware, spread over hosts, and over zones unless pinned to one.
 */
export function podTemplate(
  p: ResolvedLoki, c: LokiComponent, configMap: string, hash: string, memberLabel: { [key: string]: string },
  revision: RevisionLabel, zone?: string,
): k8s.PodTemplateSpec {
  const where = `${p.where} ${c}`;
  const source = zoneSourceOf(p, c);
  const wiring = source ? wiringOf(p, where, source, zone) : undefined;
  const labels = {
    ...standardLabels('loki', p.name, c),
    ...memberLabel,
    ...(zone === undefined ? {} : { [ZONE_LABEL]: zone }),
    ...wiring?.podLabels,
  };
  // Per-zone StatefulSets write the zone into the ingesters' arguments; the other sources hand it over
  // in the environment. Components told no zone expand the unset variable to ''.
  const staticZone = source?.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS ? zone : undefined;
  const env = containerEnv(p, wiring && staticZone === undefined ? wiring : undefined);
  const target = { selector: { matchLabels: selectorOf(p, c) }, podLabels: labels };
  const ingester = c === LokiComponent.INGESTER;
  return {
    metadata: {
      labels,
      annotations: { [CONFIG_HASH_ANNOTATION]: hash, ...wiring?.podAnnotations },
    },
    spec: {
      automountServiceAccountToken: false,
      securityContext: restrictedPodSecurity(LOKI_UID, LOKI_UID),
      affinity: zone === undefined ? undefined : {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: zoneRequirements(p.topology, [zone]) }],
          },
        },
      },
      topologySpreadConstraints: podSpread(p, c, where, target, revision, zone),
      // Ingesters flush their streams to storage on shutdown.
      terminationGracePeriodSeconds: ingester ? 300 : 30,
      initContainers: wiring && wiring.initContainers.length > 0 ? wiring.initContainers : undefined,
      containers: [lokiContainer(p, c, staticZone, env)],
      volumes: [
        { name: 'config', configMap: { name: configMap } },
        ...(ingester ? [] : [{ name: 'data', emptyDir: {} }]),
        { name: 'tmp', emptyDir: {} },
        ...(wiring?.volumes ?? []),
      ],
    },
  };
}

/**
 * Where a zone-aware component learns its zone; none for the others. Only the ingesters are split per zone:
 * with per-zone StatefulSets, the other components share one Deployment and are told no zone.
 */
function zoneSourceOf(p: ResolvedLoki, c: LokiComponent): ZoneSource | undefined {
  if (!ZONE_AWARE.has(c)) return undefined;
  return p.zoneSource.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS && c !== LokiComponent.INGESTER
    ? undefined : p.zoneSource;
}

/** How the zone reaches the pod from `source` (labels, annotations, init containers, volumes, a variable). */
function wiringOf(
  p: ResolvedLoki, where: string, source: ZoneSource, zone: string | undefined,
): ZoneWiring {
  return zoneWiring({
    where,
    source,
    topology: p.topology,
    envName: ZONE_ENV,
    zone,
    initSecurityContext: restrictedContainerSecurity(),
    initResources: containerResources('10m', '32Mi'),
  });
}

/** The container's environment: the zone variable (when handed over that way) and the S3 credentials. */
function containerEnv(p: ResolvedLoki, zoneFrom: ZoneWiring | undefined): k8s.EnvVar[] {
  const env: k8s.EnvVar[] = zoneFrom ? [zoneFrom.env] : [];
  if (p.s3?.credentialsSecretName) {
    for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      env.push({ name: key, valueFrom: { secretKeyRef: { name: p.s3.credentialsSecretName, key } } });
    }
  }
  return env;
}

/** Over zones for a zone-aware component not pinned to one zone; over hosts always. */
function podSpread(
  p: ResolvedLoki, c: LokiComponent, where: string, target: SpreadTarget,
  revision: RevisionLabel, zone: string | undefined,
): k8s.TopologySpreadConstraint[] {
  const spread: k8s.TopologySpreadConstraint[] = [];
  if (ZONE_AWARE.has(c) && zone === undefined) {
    spread.push(zoneSpreadConstraint(where, p.topology, target, { maxSkew: p.maxSkew, matchLabelKeys: [revision] }));
  }
  spread.push(hostSpreadConstraint(where, p.topology, target, { matchLabelKeys: [revision] }));
  return spread;
}
