import { App, Chart, ChartProps, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import {
  RolloutTarget, WebhookTls, Zonal, ZoneAnnotation, ZoneAwareUpdate, ZoneController, ZoneDisruptionBudget, ZoneTopology,
} from 'cdk8s-zones';

/** Restricted Pod Security for every container of the example. */
const RESTRICTED: k8s.SecurityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/** Props of `ZoneControllerChart`: a chart's, and the zones. */
export interface ZoneControllerChartProps extends ChartProps {
  /**
   * The zones: the values of topology.kubernetes.io/zone on your nodes.
   *
   * @default ['zone-a', 'zone-b', 'zone-c']
   */
  readonly zones?: string[];
}

/**
 * The runtime controller installed with all its features:
 * - the zone annotator, and an application that learns its zone at start: its pods opt in to the
 *   annotation, a downward API volume projects it into a file, and an init container (`wait-for-zone`,
 *   from the controller's image) holds the app back until the file is written;
 * - zone-aware rollouts and disruption budgets for a replicated StatefulSet: updates go zone by zone,
 *   and evictions (node drains) take pods from one zone at a time.
 */
export class ZoneControllerChart extends Chart {
  constructor(scope: Construct, id: string, props: ZoneControllerChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];
    const topology = new ZoneTopology({ zones: zoneNames });
    const controller = new ZoneController(this, 'controller', {
      topology,
      zoneAwareUpdate: true,
      zoneDisruptionBudget: true,
      webhookTls: WebhookTls.selfManaged(),
    });

    const store = new kplus.StatefulSet(this, 'store', {
      replicas: 6,
      strategy: kplus.StatefulSetUpdateStrategy.onDelete(), // the controller rolls the pods
      containers: [{
        name: 'store',
        image: 'registry.k8s.io/e2e-test-images/agnhost:2.53',
        args: ['netexec', '--http-port=8080'],
        portNumber: 8080,
        readiness: kplus.Probe.fromHttpGet('/healthz', { port: 8080 }),
        liveness: kplus.Probe.fromTcpSocket({ port: 8080 }),
        resources: {
          cpu: { request: kplus.Cpu.millis(10), limit: kplus.Cpu.millis(100) },
          memory: { request: Size.mebibytes(16), limit: Size.mebibytes(64) },
        },
        securityContext: {
          user: 65532,
          group: 65532,
          capabilities: { drop: [kplus.Capability.ALL] },
          seccompProfile: { type: kplus.SeccompProfileType.RUNTIME_DEFAULT },
        },
      }],
    });
    Zonal.spread(store, { topology });
    new ZoneAwareUpdate(this, 'store-rollout', { controller, target: RolloutTarget.statefulSet(store), maxUnavailable: 2 });
    new ZoneDisruptionBudget(this, 'store-budget', { controller, workload: store, maxUnavailable: 2 });

    // The namespace's pods accept HTTP from the namespace only.
    new k8s.KubeNetworkPolicy(this, 'http-from-namespace', {
      metadata: { name: 'http-from-namespace' },
      spec: {
        podSelector: {},
        policyTypes: ['Ingress'],
        ingress: [{ ports: [{ protocol: 'TCP', port: k8s.IntOrString.fromNumber(8080) }], from: [{ podSelector: {} }] }],
      },
    });

    const labels = { 'app.kubernetes.io/name': 'zone-aware-app', [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE };
    const resources = {
      requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('16Mi') },
      limits: { memory: k8s.Quantity.fromString('64Mi') },
    };
    const app = new k8s.KubeDeployment(this, 'app', {
      metadata: { name: 'zone-aware-app' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'zone-aware-app' } },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            initContainers: [{
              name: 'wait-for-zone',
              image: controller.image,
              command: controller.waitForZoneCommand('/etc/zone/zone', 300),
              volumeMounts: [{ name: 'zone', mountPath: '/etc/zone', readOnly: true }],
              resources,
              securityContext: RESTRICTED,
            }],
            containers: [{
              name: 'app',
              image: 'registry.k8s.io/e2e-test-images/agnhost:2.53',
              args: ['netexec', '--http-port=8080'],
              ports: [{ name: 'http', containerPort: 8080 }],
              readinessProbe: { httpGet: { path: '/healthz', port: k8s.IntOrString.fromString('http') } },
              livenessProbe: { tcpSocket: { port: k8s.IntOrString.fromString('http') } },
              env: [{ name: 'ZONE_FILE', value: '/etc/zone/zone' }],
              volumeMounts: [{ name: 'zone', mountPath: '/etc/zone', readOnly: true }],
              resources,
              securityContext: RESTRICTED,
            }],
            volumes: [{
              name: 'zone',
              downwardApi: { items: [{ path: 'zone', fieldRef: { fieldPath: `metadata.annotations['${ZoneAnnotation.VALUE_ANNOTATION}']` } }] },
            }],
          },
        },
      },
    });
    // Zonal takes raw k8s objects too: one replica per zone, so losing one leaves two.
    Zonal.spread(app, { topology });
    new k8s.KubePodDisruptionBudget(this, 'app-pdb', {
      metadata: { name: 'zone-aware-app' },
      spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: { 'app.kubernetes.io/name': 'zone-aware-app' } } },
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App, zones?: string[]): void {
  new ZoneControllerChart(app, 'zone-controller', { disableResourceNameHashes: true, namespace: 'zone-aware-store', zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
