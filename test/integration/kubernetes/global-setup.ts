/**
 * Jest global setup of the "kubernetes" project: starts one control plane for all its test files (they
 * find it with `testCluster()`). Throws, failing the run, when a program is missing or does not start.
 */
import { ControlPlane, CLUSTER_ENV } from './control-plane';

export const CONTROL_PLANE = Symbol.for('cdk8s-zones.test.controlPlane');

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const cp = await ControlPlane.start({ name: 'test' });
  (globalThis as any)[CONTROL_PLANE] = cp;
  process.env[CLUSTER_ENV] = cp.infoFile;
  const { info } = cp;
  console.log(`\nKubernetes ${info.kubernetesVersion} test control plane up in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
    `${info.server}, ${info.nodes.length} kwok nodes in ${info.zones.join(', ')}; kubeconfig ${info.kubeconfig}`);
}
