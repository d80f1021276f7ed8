import { App, Chart, ChartProps } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { RolloutTarget, ZoneAwareUpdate, ZoneController, ZoneDisruptionBudget, Zonal, ZoneTopology } from 'cdk8s-zones';
import { Construct } from 'constructs';

/** An image made to run as non-root with a read-only root file system, as cdk8s-plus runs containers. */
const container = {
  image: 'registry.k8s.io/e2e-test-images/agnhost:2.53',
  args: ['netexec', '--http-port=8080'],
  portNumber: 8080,
  securityContext: { user: 65532, group: 65532 },
};

export class MyChart extends Chart {
  constructor(scope: Construct, id: string, props: ChartProps = {}) {
    super(scope, id, { namespace: 'shop', ...props });
    const zones = new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] });

    const web = new kplus.Deployment(this, 'web', { replicas: 6, containers: [container] });
    Zonal.spread(web, { topology: zones });
    // The cluster's zone-aware controller is installed by the platform team's app, serving this namespace.
    const controller = ZoneController.fromInstalled({ workloadNamespaces: ['shop'], zoneAwareUpdate: true, zoneDisruptionBudget: true });
    new ZoneDisruptionBudget(this, 'web-budget', { controller, workload: web, maxUnavailable: 1 });

    const queue = new kplus.StatefulSet(this, 'queue', {
      replicas: 3,
      containers: [container],
      strategy: kplus.StatefulSetUpdateStrategy.onDelete(),
    });
    Zonal.spread(queue, { topology: zones });
    new ZoneAwareUpdate(this, 'queue-rollout', { controller, target: RolloutTarget.statefulSet(queue), maxUnavailable: 1 });
  }
}

const app = new App();
new MyChart(app, 'my-zonal-app');
app.synth();
