import { IConstruct } from 'constructs';

/** The construct metadata type under which cdk8s-zones records synth-time warnings. */
export const WARNING_METADATA = 'cdk8s-zones:warning';

/**
 * Reports something the user should know but that does not make the manifests wrong (a degraded layout,
 * an upstream bug that applies): printed to stderr during synth and recorded on the construct, so tests
 * and tools can read it with `warningsOf`.
 */
export function addWarning(scope: IConstruct, message: string): void {
  scope.node.addMetadata(WARNING_METADATA, message);
  process.stderr.write(`[cdk8s-zones] WARNING ${scope.node.path}: ${message}\n`);
}

/** The warnings recorded on `scope` and every construct below it, as `path: message`. */
export function warningsOf(scope: IConstruct): string[] {
  return scope.node.findAll().flatMap((c) => c.node.metadata
    .filter((m) => m.type === WARNING_METADATA)
    .map((m) => `${c.node.path}: ${m.data}`));
}
