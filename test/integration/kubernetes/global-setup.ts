/**
 * Jest global setup of the "kubernetes" projects: starts one control plane for all the test files of the project
 * (they find it with `testCluster()`). Throws, failing the run, when a program is missing or does not start.
 */
import type { Config } from '@jest/types';
import { ControlPlane, CLUSTER_ENV } from './control-plane';

export const CONTROL_PLANE = Symbol.for('cdk8s-zones.test.controlPlane');

/**
 * The pod IPs of each project's control plane, by project: the projects run side by side (run.sh), and tests listen
 * on their pods' IPs (loopback), so the two clusters' nodes never share a pod CIDR. The octets the tests' own extra
 * nodes take (243 to 249) are left to them.
 */
const POD_CIDR_OCTETS: { readonly [project: string]: { readonly nodes: number; readonly unassigned: number } } = {
  'kubernetes': { nodes: 244, unassigned: 240 },
  'kubernetes-long': { nodes: 250, unassigned: 241 },
};

export default async function globalSetup(_: Config.GlobalConfig, project: Config.ProjectConfig): Promise<void> {
  const name = typeof project.displayName === 'string' ? project.displayName : project.displayName?.name ?? '';
  const octets = POD_CIDR_OCTETS[name];
  if (!octets) throw new Error(`global-setup: no pod CIDRs for the jest project ${JSON.stringify(name)} (POD_CIDR_OCTETS)`);
  // the tests find their cluster in the environment, one per jest process
  if (process.env[CLUSTER_ENV]) {
    throw new Error(`global-setup: this jest already runs a kubernetes project's suites (${CLUSTER_ENV} is set): run the`
      + ` suites of ${name} in a jest of their own (--selectProjects ${name}, as run.sh does)`);
  }
  const started = Date.now();
  const cp = await ControlPlane.start({
    name: 'test', layout: { podCidrOctet: octets.nodes }, unassignedPodCidrOctet: octets.unassigned,
  });
  (globalThis as any)[CONTROL_PLANE] = cp;
  process.env[CLUSTER_ENV] = cp.infoFile;
  const { info } = cp;
  console.log(`\nKubernetes ${info.kubernetesVersion} ${name} control plane up in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
    `${info.server}, ${info.nodes.length} kwok nodes in ${info.zones.join(', ')}; kubeconfig ${info.kubeconfig}`);
}
