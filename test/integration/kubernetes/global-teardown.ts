/**
 * Jest global teardown of the "kubernetes" project: stops the control plane. A component that stopped
 * during the run fails the run (its tests may have passed before it died, later ones cannot be trusted).
 */
import { ControlPlane } from './control-plane';
import { CONTROL_PLANE } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const cp = (globalThis as any)[CONTROL_PLANE] as ControlPlane | undefined;
  if (!cp) return;
  const problems = await cp.stop();
  console.log(`Kubernetes test control plane stopped; logs in ${cp.logsDir}`);
  if (problems.length) throw new Error(`the Kubernetes test control plane failed during the run:\n${problems.join('\n')}`);
}
