import { Chart, Testing } from 'cdk8s';
import { IZoneController, ZoneController } from '../src';

/** A chart in a fresh test app, with stable resource names (and `namespace` for its objects, when given). */
export function testChart(namespace?: string): Chart {
  return new Chart(Testing.app(), 'test', { disableResourceNameHashes: true, namespace });
}

/** The namespace of the constructs the tests give `INSTALLED_CONTROLLER`. */
export const SERVED_NAMESPACE = 'apps';

/**
 * A controller installed by another app, running every feature, serving `SERVED_NAMESPACE` and the namespaces the
 * tests name ('data', 'logs'): for constructs whose controller is not under test (the wiring itself:
 * test/zone-controller/requirements.test.ts).
 */
export const INSTALLED_CONTROLLER: IZoneController = ZoneController.fromInstalled({
  workloadNamespaces: [SERVED_NAMESPACE, 'data', 'logs', 'other'],
  zoneAwareUpdate: true,
  zoneDisruptionBudget: true,
  redisManager: true,
});

/** The synthesized manifests of a chart (runs validation, exactly as `cdk8s synth`). */
export function synth(chart: Chart): any[] {
  return Testing.synth(chart);
}

/** The one synthesized object of `kind` (and `name`, when given); fails when there is not exactly one. */
export function only(objects: any[], kind: string, name?: string): any {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata?.name === name));
  if (found.length !== 1) {
    throw new Error(`expected one ${kind}${name ? ` named ${name}` : ''}, found ${found.length}: ` +
      objects.map((o) => `${o.kind}/${o.metadata?.name}`).join(', '));
  }
  return found[0];
}
