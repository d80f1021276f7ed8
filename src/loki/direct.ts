import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { lokiConfig, LokiStorageConfig, QUERY_INGESTERS_WITHIN, renderLokiConfig } from './config';
import { DATA_DIR, GRPC_PORT, HTTP_PORT, MEMBERLIST_PORT, podTemplate, selectorOf, ZONE_ENV } from './direct-pod';
import { MigrationStep } from './migration';
import { CONTROLLER_ROLLED } from './migration-rollouts';
import { componentName, LokiComponent, ResolvedLoki } from './options';
import { LOKI_MEMBERLIST_LABEL, ZONE_LABEL } from '../contract/labels';
import { quorumAnnotations, ZONE_MAJORITY } from '../contract/zone-check';
import { containerResources } from '../kubernetes/container-resources';
import { clientPeers, emitNetworkPolicy, NetworkPeer } from '../kubernetes/network-policy';
import { restrictedContainerSecurity, restrictedPodSecurity } from '../kubernetes/pod-security';
import { KubeServiceWithTraffic } from '../kubernetes/service';
import { standardLabels } from '../kubernetes/standard-labels';
import { zoneSlugs } from '../kubernetes/zone-slug';
import { configHash } from '../shared/config-hash';
import { durationText } from '../shared/durations';
import { hostSpreadConstraint, RevisionLabel, zoneSpreadConstraint } from '../topology/spread';
import { placementBounds } from '../topology/spread-bounds';
import { zoneLocalTraffic } from '../traffic/zone-local-safety';
import { ZoneSourceKind } from '../zone-source/zone-source';

export { GRPC_PORT, HTTP_PORT, MEMBERLIST_PORT, selectorOf, ZONE_ENV, ZONE_FLAG } from './direct-pod';

const GATEWAY_PORT = 8080;

/**
 * The migration step from which a component reads the zone-aware configuration (migration.ts); the others from the
 * first. The ruler evaluates rules with a querier of its own, reading ingesters, and writes to none.
 */
const ZONE_AWARE_FROM = new Map<LokiComponent, MigrationStep>([
  [LokiComponent.DISTRIBUTOR, MigrationStep.WRITE_PATH],
  [LokiComponent.QUERIER, MigrationStep.READ_PATH],
  [LokiComponent.RULER, MigrationStep.READ_PATH],
]);

/** The objects of the direct output, for callers and tests. */
export interface DirectLoki {
  readonly configMap: k8s.KubeConfigMap;
  readonly ingesters: k8s.KubeStatefulSet[];
  readonly deployments: k8s.KubeDeployment[];
}

/**
 * Loki in microservices mode as plain Kubernetes objects: one ConfigMap with the Loki configuration all
 * components share (`-target=` picks the component), a headless memberlist Service, the ingesters as
 * StatefulSet(s) and every other component as a Deployment with a Service.
 */
export function directLoki(
  scope: Construct, p: ResolvedLoki, scrapers: () => readonly NetworkPeer[],
): DirectLoki {
  const { configMap, hash } = sharedConfig(scope, p, true);
  // Until a migration to zone awareness reaches them, some components keep a configuration without it (migration.ts).
  const readPathNotReached = p.migration !== undefined && p.migration < MigrationStep.READ_PATH;
  const before = readPathNotReached ? sharedConfig(scope, p, false) : undefined;
  // With a controller, the components it rolls in sequence have their zone-aware template already (their pods
  // keep the one before, which still reads `before`, until it rolls them).
  const held = (c: LokiComponent) => p.migrationByController === true && CONTROLLER_ROLLED.includes(c);
  const reached = (c: LokiComponent) => p.migration === undefined
    || held(c)
    || p.migration >= (ZONE_AWARE_FROM.get(c) ?? MigrationStep.INGESTERS);
  const configOf = (c: LokiComponent) => (before && !reached(c) ? before : { configMap, hash });
  const memberLabel = { [LOKI_MEMBERLIST_LABEL]: p.name };
  new k8s.KubeService(scope, 'memberlist', {
    metadata: { name: `${p.name}-memberlist`, namespace: p.metadataNamespace, labels: standardLabels('loki', p.name, 'memberlist') },
    spec: {
      clusterIp: 'None',
      publishNotReadyAddresses: true, // ring members must find each other before they are ready
      selector: memberLabel,
      ports: [{ name: 'memberlist', port: MEMBERLIST_PORT, targetPort: k8s.IntOrString.fromString('memberlist') }],
    },
  });
  const components = [
    LokiComponent.DISTRIBUTOR, LokiComponent.QUERIER, LokiComponent.QUERY_FRONTEND, LokiComponent.INDEX_GATEWAY,
    LokiComponent.COMPACTOR, ...(p.ruler ? [LokiComponent.RULER] : []),
  ];
  for (const c of [...components, LokiComponent.INGESTER]) componentService(scope, p, c);
  const deployments = components.map((c) => new k8s.KubeDeployment(scope, c, {
    metadata: {
      name: componentName(p, c),
      namespace: p.metadataNamespace,
      labels: standardLabels('loki', p.name, c),
      // for the zone check: Loki works on while its one compactor is away with its zone
      annotations: c === LokiComponent.COMPACTOR ? quorumAnnotations('0', 'one compactor by design: compaction and retention pause while it is away; reads and writes go on') : undefined,
    },
    spec: {
      replicas: c === LokiComponent.COMPACTOR ? 1 : p.replicas,
      strategy: deploymentStrategy(p, c, held(c)),
      selector: { matchLabels: selectorOf(p, c) },
      template: podTemplate(
        p,
        c,
        configOf(c).configMap.name,
        configOf(c).hash,
        memberLabel,
        RevisionLabel.POD_TEMPLATE_HASH,
      ),
    },
  }));
  // A drain takes one replica of a component at a time (the compactor, alone by design, is left to the drain).
  for (const c of components.filter((x) => x !== LokiComponent.COMPACTOR && p.replicas > 1)) budget(scope, p, c, `${c}-pdb`);
  const ingesters = ingesterStatefulSets(scope, p, configMap.name, hash, memberLabel);
  budget(scope, p, LokiComponent.INGESTER, 'ingester-pdb');
  if (p.gateway) gateway(scope, p);
  networkPolicies(scope, p, memberLabel, scrapers);
  return { configMap, ingesters, deployments };
}

/**
 * A component's Deployment strategy. Recreate for the compactor (two would compact the same index) and for a
 * Deployment the controller rolls (`held`: it is paused). In step 1 of a migration, Kubernetes' RollingUpdate
 * defaults written out for the Deployments a controller may roll in step 2: an apply (server-side, or kubectl's
 * three-way merge) removes a field it set before, so step 2 can make them Recreate, where a defaulted
 * `rollingUpdate` would make the API server refuse it.
 */
function deploymentStrategy(p: ResolvedLoki, c: LokiComponent, held: boolean): k8s.DeploymentStrategy | undefined {
  if (c === LokiComponent.COMPACTOR || held) return { type: 'Recreate' };
  if (p.migration !== MigrationStep.INGESTERS || !CONTROLLER_ROLLED.includes(c)) return undefined;
  const quarter = k8s.IntOrString.fromString('25%');
  return { type: 'RollingUpdate', rollingUpdate: { maxSurge: quarter, maxUnavailable: quarter } };
}

/**
 * The Loki configuration the components share (`-target=` picks the component), and its hash: zone-aware, or
 * (`zoneAware` false) the one of the components a migration to zone awareness has not reached yet.
 */
function sharedConfig(
  scope: Construct,
  p: ResolvedLoki,
  zoneAware: boolean,
): { configMap: k8s.KubeConfigMap; hash: string } {
  const svc = (c: LokiComponent) => componentName(p, c);
  const storage: LokiStorageConfig = p.s3
    ? { type: 's3', ...p.s3, forcePathStyle: p.s3.forcePathStyle ?? p.s3.endpoint !== undefined }
    : { type: 'filesystem', directory: `${DATA_DIR}/storage` };
  const config = renderLokiConfig(lokiConfig({
    replicationFactor: p.replicationFactor,
    zoneAwareness: zoneAware,
    instanceZone: `\${${ZONE_ENV}}`,
    queryIngestersWithin: durationText(p.where, 'queryIngestersWithin', QUERY_INGESTERS_WITHIN),
    httpPort: HTTP_PORT,
    grpcPort: GRPC_PORT,
    memberlistPort: MEMBERLIST_PORT,
    joinMembers: [`${p.name}-memberlist:${MEMBERLIST_PORT}`],
    pathPrefix: DATA_DIR,
    storage,
    frontendAddress: `${frontendWorkersService(p)}:${GRPC_PORT}`,
    indexGatewayAddress: `dns:///${svc(LokiComponent.INDEX_GATEWAY)}:${GRPC_PORT}`,
    compactorAddress: `http://${svc(LokiComponent.COMPACTOR)}:${HTTP_PORT}`,
  }));
  const configMap = new k8s.KubeConfigMap(scope, zoneAware ? 'config' : 'config-before-zones', {
    metadata: {
      name: `${p.name}-config${zoneAware ? '' : BEFORE_ZONES_SUFFIX}`,
      namespace: p.metadataNamespace,
      labels: standardLabels('loki', p.name, 'config'),
    },
    data: { 'config.yaml': config },
  });
  return { configMap, hash: configHash(config) };
}

/**
 * Headless Services, whose clients resolve every pod: the index gateways' (gRPC clients balance over all), the
 * query-frontends' for the queriers' workers (each must connect to every frontend), and the ingesters' (the
 * StatefulSets' governing Service, which gives each pod its DNS name).
 */
const HEADLESS = new Set<LokiComponent>([LokiComponent.INDEX_GATEWAY, LokiComponent.INGESTER]);

/**
 * The zone-local traffic of a Service over a component whose `replicas` pods are spread over the zones by `maxSkew`
 * (every zone a domain, with room for all of them).
 */
const spreadTraffic = (p: ResolvedLoki) => {
  const zones = p.topology.zones;
  const spread = { maxSkew: p.maxSkew, minIsZero: false, domains: zones.map(() => true) };
  return zoneLocalTraffic(p.topology, placementBounds(p.replicas, zones.map(() => Infinity), spread));
};

/** The suffix of the ConfigMap of the components a migration to zone awareness has not reached yet. */
const BEFORE_ZONES_SUFFIX = '-before-zones';

/** The suffix of the headless Service of the query-frontends (after the component), the longest Service name. */
export const WORKERS_SERVICE_SUFFIX = '-headless';

/** The headless Service of the query-frontends, which the queriers' workers resolve to connect to each. */
const frontendWorkersService = (p: ResolvedLoki) =>
  `${componentName(p, LokiComponent.QUERY_FRONTEND)}${WORKERS_SERVICE_SUFFIX}`;

/**
 * A component's Service (HTTP and gRPC). The ones clients and other components call through a cluster IP keep
 * each caller in its zone where the cluster allows it and every zone holds a pod (the compactor, alone, does not).
 */
function componentService(scope: Construct, p: ResolvedLoki, c: LokiComponent): void {
  const ports = [
    { name: 'http', port: HTTP_PORT, targetPort: k8s.IntOrString.fromString('http') },
    { name: 'grpc', port: GRPC_PORT, targetPort: k8s.IntOrString.fromString('grpc') },
  ];
  const labels = standardLabels('loki', p.name, c);
  const headless = HEADLESS.has(c);
  const zoneLocal = !headless && c !== LokiComponent.COMPACTOR;
  new KubeServiceWithTraffic(scope, `${c}-service`, {
    metadata: { name: componentName(p, c), namespace: p.metadataNamespace, labels },
    spec: { clusterIp: headless ? 'None' : undefined, selector: selectorOf(p, c), ports },
  }, zoneLocal ? spreadTraffic(p) : undefined);
  if (c === LokiComponent.QUERY_FRONTEND) {
    new k8s.KubeService(scope, `${c}-headless-service`, {
      metadata: { name: frontendWorkersService(p), namespace: p.metadataNamespace, labels },
      spec: { clusterIp: 'None', selector: selectorOf(p, c), ports },
    });
  }
}

/** A budget of one unavailable pod over a component. */
function budget(scope: Construct, p: ResolvedLoki, c: LokiComponent, id: string): void {
  new k8s.KubePodDisruptionBudget(scope, id, {
    metadata: { name: componentName(p, c), namespace: p.metadataNamespace, labels: standardLabels('loki', p.name, c) },
    spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selectorOf(p, c) } },
  });
}

/** The ingesters: one StatefulSet per zone (pinned to it), or one for all zones. */
function ingesterStatefulSets(
  scope: Construct, p: ResolvedLoki, configMapName: string, hash: string, memberLabel: { [key: string]: string },
): k8s.KubeStatefulSet[] {
  const governing = componentName(p, LokiComponent.INGESTER);
  const zones = p.zoneSource.kind === ZoneSourceKind.PER_ZONE_STATEFUL_SETS ? p.topology.zones : [undefined];
  const slugs = zoneSlugs(p.topology.zones);
  return zones.map((zone) => {
    const suffix = zone === undefined ? '' : `-${slugs[p.topology.zones.indexOf(zone)]}`;
    const zoneLabel: { [key: string]: string } = zone === undefined ? {} : { [ZONE_LABEL]: zone };
    const labels = { ...standardLabels('loki', p.name, LokiComponent.INGESTER), ...zoneLabel };
    const replicas = zone === undefined ? p.ingesterReplicasPerZone * p.topology.zoneCount : p.ingesterReplicasPerZone;
    // for the zone check: zone-aware replication writes each stream to every zone; a majority of them is a quorum
    const quorum = quorumAnnotations(ZONE_MAJORITY, `zone-aware replication, factor ${p.replicationFactor}: a write needs a majority of the zones`,
      zone === undefined ? undefined : governing);
    return new k8s.KubeStatefulSet(scope, `ingester${suffix}`, {
      metadata: { name: `${governing}${suffix}`, namespace: p.metadataNamespace, labels, annotations: quorum },
      spec: {
        replicas,
        serviceName: governing,
        podManagementPolicy: 'Parallel',
        // Nothing rolls until a zone's partition is lowered: see rollout.ts (replaced by OnDelete when the controller
        // rolls).
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: replicas } },
        selector: { matchLabels: { ...selectorOf(p, LokiComponent.INGESTER), ...zoneLabel } },
        template: podTemplate(
          p,
          LokiComponent.INGESTER,
          configMapName,
          hash,
          memberLabel,
          RevisionLabel.CONTROLLER_REVISION_HASH,
          zone,
        ),
        volumeClaimTemplates: [{
          metadata: { name: 'data' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: p.storageClasses.forZone(zone),
            resources: { requests: { storage: k8s.Quantity.fromString(p.ingesterStorageSize) } },
          },
        }],
      },
    });
  });
}

/**
 * The components talk to one another on every port (HTTP, gRPC, memberlist); clients push, query and
 * scrape over HTTP and gRPC, directly or through the gateway, which admits HTTP from clients; the Prometheus that
 * monitors the stack (`scrapers`, known when the app is synthesized) scrapes over HTTP.
 */
function networkPolicies(
  scope: Construct, p: ResolvedLoki, memberLabel: { [key: string]: string }, scrapers: () => readonly NetworkPeer[],
): void {
  const ns = p.metadataNamespace;
  const clients = clientPeers(p.networkPolicy);
  const gatewayPods = p.gateway ? [{ podLabels: selectorOf(p, LokiComponent.GATEWAY) }] : [];
  emitNetworkPolicy(scope, 'network-policy', p.where, p.networkPolicy, {
    name: p.name,
    namespace: ns,
    labels: standardLabels('loki', p.name, 'network-policy'),
    podSelector: memberLabel,
    ingress: [
      { ports: ['http', 'grpc', 'memberlist'], from: [{ podLabels: memberLabel }] },
      { ports: ['http', 'grpc'], from: [...clients, ...gatewayPods] },
      { ports: ['http'], from: scrapers },
    ],
  });
  if (!p.gateway) return;
  emitNetworkPolicy(scope, 'gateway-network-policy', p.where, p.networkPolicy, {
    name: componentName(p, LokiComponent.GATEWAY),
    namespace: ns,
    labels: standardLabels('loki', p.name, LokiComponent.GATEWAY),
    podSelector: selectorOf(p, LokiComponent.GATEWAY),
    ingress: [{ ports: ['http'], from: clients }],
  });
}

/** The gateway's nginx, its configuration's namespace substituted at start. */
function gatewayContainer(p: ResolvedLoki): k8s.Container {
  return {
    name: 'nginx',
    image: p.gatewayImage,
    // The namespace is only known at run time: substitute it into the configuration at start.
    command: ['sh', '-c', 'sed "s/NAMESPACE/$POD_NAMESPACE/" /etc/nginx/template/nginx.conf.template >/tmp/nginx.conf && exec nginx -c /tmp/nginx.conf -g "daemon off;"'],
    env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
    ports: [{ name: 'http', containerPort: GATEWAY_PORT }],
    readinessProbe: { httpGet: { path: '/ready', port: k8s.IntOrString.fromString('http') }, periodSeconds: 10 },
    livenessProbe: { tcpSocket: { port: k8s.IntOrString.fromString('http') }, periodSeconds: 30 },
    resources: containerResources('10m', '32Mi', '64Mi'),
    securityContext: restrictedContainerSecurity(),
    volumeMounts: [
      { name: 'config', mountPath: '/etc/nginx/template', readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
    ],
  };
}

/** The gateway's nginx configuration: pushes to the distributors, queries to the frontends (NAMESPACE set at start). */
function gatewayNginxConf(name: string): string {
  const upstream = (c: LokiComponent) => `http://${name}-${c}.$namespace.svc.cluster.local:${HTTP_PORT}`;
  return [
    'worker_processes 1;',
    'pid /tmp/nginx.pid;',
    'events { worker_connections 1024; }',
    'http {',
    '  client_body_temp_path /tmp/client_temp;',
    '  proxy_temp_path /tmp/proxy_temp;',
    '  fastcgi_temp_path /tmp/fastcgi_temp;',
    '  uwsgi_temp_path /tmp/uwsgi_temp;',
    '  scgi_temp_path /tmp/scgi_temp;',
    '  resolver kube-dns.kube-system.svc.cluster.local;',
    '  server {',
    `    listen ${GATEWAY_PORT};`,
    '    set $namespace NAMESPACE;',
    `    location = /loki/api/v1/push { proxy_pass ${upstream(LokiComponent.DISTRIBUTOR)}$request_uri; }`,
    `    location /loki/api/ { proxy_pass ${upstream(LokiComponent.QUERY_FRONTEND)}$request_uri; }`,
    '    location = /ready { return 200 "ready\\n"; }',
    '  }',
    '}',
  ].join('\n');
}

/** An nginx in front: pushes to the distributors, everything else to the query-frontends. */
function gateway(scope: Construct, p: ResolvedLoki): void {
  const ns = p.metadataNamespace;
  const name = componentName(p, LokiComponent.GATEWAY);
  const labels = standardLabels('loki', p.name, LokiComponent.GATEWAY);
  const selector = selectorOf(p, LokiComponent.GATEWAY);
  const conf = gatewayNginxConf(p.name);
  new k8s.KubeConfigMap(scope, 'gateway-config', { metadata: { name, namespace: ns, labels }, data: { 'nginx.conf.template': conf } });
  const target = { selector: { matchLabels: selector }, podLabels: labels };
  const matchLabelKeys = [RevisionLabel.POD_TEMPLATE_HASH];
  new k8s.KubeDeployment(scope, 'gateway', {
    metadata: { name, namespace: ns, labels },
    spec: {
      replicas: p.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          securityContext: restrictedPodSecurity(101),
          topologySpreadConstraints: [
            zoneSpreadConstraint(`${p.where} gateway`, p.topology, target, { maxSkew: p.maxSkew, matchLabelKeys }),
            hostSpreadConstraint(`${p.where} gateway`, p.topology, target, { matchLabelKeys }),
          ],
          containers: [gatewayContainer(p)],
          volumes: [{ name: 'config', configMap: { name } }, { name: 'tmp', emptyDir: {} }],
        },
      },
    },
  });
  if (p.replicas > 1) {
    new k8s.KubePodDisruptionBudget(scope, 'gateway-pdb', {
      metadata: { name, namespace: ns, labels },
      spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
    });
  }
  new KubeServiceWithTraffic(scope, 'gateway-service', {
    metadata: { name, namespace: ns, labels },
    spec: { selector, ports: [{ name: 'http', port: 80, targetPort: k8s.IntOrString.fromString('http') }] },
  }, spreadTraffic(p));
}
