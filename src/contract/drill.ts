/**
 * The contract between a drill (the CLI's `cdk8s-zones drill`, which marks the nodes it changes) and the controller
 * (whose autoshift reads those marks): an outage drill looks to the autoshift like the outage it plays, and no
 * practice run starts while any drill is under way. Pure (Node.js built-ins only): the controller image imports it.
 */
import { PROJECT_DOMAIN } from './labels';

/**
 * `outage`: the zone dies (NoExecute taint: pods go, budgets do not help). `drain`: maintenance (cordon, evictions).
 */
export type DrillMode = 'outage' | 'drain';
export const DRILL_MODES: readonly DrillMode[] = ['outage', 'drain'];

/** The annotation holding a drill's record on each node it changed. */
export const DRILL_RECORD_ANNOTATION = `${PROJECT_DOMAIN}/drill`;

/**
 * The NoExecute taint of an outage drill. Ours, not node.kubernetes.io/unreachable: the node lifecycle controller
 * removes that one from a node that is in fact Ready, and most pods tolerate it for 300 s.
 */
export const DRILL_OUTAGE_TAINT_KEY = `${PROJECT_DOMAIN}/drill-outage`;

/** The fields of a node that say whether a drill is under way on it. */
export interface DrillMarkedNode {
  readonly metadata: { readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: { readonly taints?: ReadonlyArray<{ readonly key: string; readonly effect?: string }> };
}

/** The drill under way on `node` (an outage: its taint is there; a drain: only its record), or undefined. */
export function drillOnNode(node: DrillMarkedNode): DrillMode | undefined {
  if ((node.spec?.taints ?? []).some((t) => t.key === DRILL_OUTAGE_TAINT_KEY && t.effect === 'NoExecute')) return 'outage';
  return node.metadata.annotations?.[DRILL_RECORD_ANNOTATION] !== undefined ? 'drain' : undefined;
}
