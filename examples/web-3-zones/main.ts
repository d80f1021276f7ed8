import { App, Chart, ChartProps, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { Zonal, ZoneTopology } from 'cdk8s-zones';

/** Props of `WebChart`: a chart's, and the zones. */
export interface WebChartProps extends ChartProps {
  /**
   * The zones: the values of topology.kubernetes.io/zone on your nodes.
   *
   * @default ['zone-a', 'zone-b', 'zone-c']
   */
  readonly zones?: string[];
}

/**
 * A stateless web Deployment spread evenly over three zones: a zone outage leaves the other zones'
 * pods serving, and the scheduler keeps replacements Pending instead of packing them into two zones.
 * Drains take one pod at a time, and a NetworkPolicy admits HTTP only.
 */
export class WebChart extends Chart {
  constructor(scope: Construct, id: string, props: WebChartProps = {}) {
    super(scope, id, props);
    const zoneNames = props.zones ?? ['zone-a', 'zone-b', 'zone-c'];

    const zones = new ZoneTopology({ zones: zoneNames });

    const web = new kplus.Deployment(this, 'web', {
      replicas: 6,
      containers: [{
        name: 'web',
        image: 'registry.k8s.io/e2e-test-images/agnhost:2.53',
        args: ['netexec', '--http-port=8080'],
        portNumber: 8080,
        readiness: kplus.Probe.fromHttpGet('/healthz', { port: 8080 }),
        liveness: kplus.Probe.fromTcpSocket({ port: 8080 }),
        resources: {
          cpu: { request: kplus.Cpu.millis(50), limit: kplus.Cpu.millis(200) },
          memory: { request: Size.mebibytes(32), limit: Size.mebibytes(64) },
        },
        // Pod Security "restricted": non-root, no privilege escalation, no capabilities, RuntimeDefault seccomp.
        securityContext: {
          user: 65532,
          group: 65532,
          capabilities: { drop: [kplus.Capability.ALL] },
          seccompProfile: { type: kplus.SeccompProfileType.RUNTIME_DEFAULT },
        },
      }],
    });
    Zonal.spread(web, { topology: zones });
    web.exposeViaService({ name: 'web', ports: [{ port: 80, targetPort: 8080 }] });
    new k8s.KubePodDisruptionBudget(this, 'web-pdb', {
      metadata: { name: 'web' },
      spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: web.matchLabels } },
    });
    // HTTP from anywhere (an ingress controller in its own namespace, other apps); nothing else.
    new k8s.KubeNetworkPolicy(this, 'web-network-policy', {
      metadata: { name: 'web' },
      spec: {
        podSelector: { matchLabels: web.matchLabels },
        policyTypes: ['Ingress'],
        ingress: [{
          ports: [{ protocol: 'TCP', port: k8s.IntOrString.fromNumber(8080) }],
          from: [{ namespaceSelector: {} }],
        }],
      },
    });
  }
}

/** Adds this example's charts to `app` (used by `cdk8s synth`, the snapshot test and the benchmark). */
export function build(app: App, zones?: string[]): void {
  new WebChart(app, 'web', { disableResourceNameHashes: true, zones });
}

if (require.main === module) {
  const app = new App();
  build(app);
  app.synth();
}
