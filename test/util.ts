import { Chart, Testing } from 'cdk8s';

/** A chart in a fresh test app, with stable resource names. */
export function testChart(): Chart {
  return new Chart(Testing.app(), 'test', { disableResourceNameHashes: true });
}

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
