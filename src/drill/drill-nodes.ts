/**
 * What a drill changes on a node, and how it is undone. The record of the change goes onto the node in the same
 * patch as the change (so no node is ever changed without it), and `drill --restore` undoes a drill cut short from
 * the records alone. Both patches are conditional on the node's resourceVersion: a node changed meanwhile by
 * someone else is read again, not overwritten.
 */
import { DRILL_MODES, DRILL_OUTAGE_TAINT_KEY, DRILL_RECORD_ANNOTATION, DrillMode } from '../contract/drill';
import { asObject, Live, Node } from '../kubernetes/objects';

/** What a drill did to a node, as recorded on it. */
export interface DrillRecord {
  readonly zone: string;
  readonly mode: DrillMode;
  readonly startedAt: string;
  /** `spec.unschedulable` before the drill (`null`: unset), restored as it was. */
  readonly unschedulableBefore: boolean | null;
}

/** A node as the drill reads it (its labels, annotations, taints, unschedulable, resourceVersion). */
export type DrillNode = Live<Node>;

/** The record on `node`, undefined when it has none; a record that is not ours to read is an error naming the node. */
export function drillRecordOf(node: DrillNode): DrillRecord | undefined {
  const text = node.metadata.annotations?.[DRILL_RECORD_ANNOTATION];
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const record = asObject(parsed);
  if (typeof record?.zone !== 'string' || !DRILL_MODES.includes(record.mode as DrillMode)
    || ![true, false, null].includes(record.unschedulableBefore as boolean | null)) {
    throw new Error(`node ${node.metadata.name}: annotation ${DRILL_RECORD_ANNOTATION} is not a drill record: ${JSON.stringify(text).slice(0, 200)}`);
  }
  return record as unknown as DrillRecord;
}

/** The merge patch that starts the drill on `node`: its record and the change, together. */
export function drillPatch(node: DrillNode, zone: string, mode: DrillMode, startedAt: string): object {
  const record: DrillRecord = { zone, mode, startedAt, unschedulableBefore: node.spec?.unschedulable ?? null };
  const change = mode === 'outage'
    ? { taints: [...node.spec?.taints ?? [], { key: DRILL_OUTAGE_TAINT_KEY, value: zone, effect: 'NoExecute' }] }
    : { unschedulable: true };
  return {
    metadata: {
      resourceVersion: node.metadata.resourceVersion,
      annotations: { [DRILL_RECORD_ANNOTATION]: JSON.stringify(record) },
    },
    spec: change,
  };
}

/** The merge patch that undoes a drill on `node` from its record: exactly what the drill changed, nothing else. */
export function restorePatch(node: DrillNode, record: DrillRecord): object {
  const kept = (node.spec?.taints ?? []).filter((t) => t.key !== DRILL_OUTAGE_TAINT_KEY);
  const spec = record.mode === 'outage'
    ? { taints: kept.length > 0 ? kept : null }
    : { unschedulable: record.unschedulableBefore };
  return {
    metadata: { resourceVersion: node.metadata.resourceVersion, annotations: { [DRILL_RECORD_ANNOTATION]: null } },
    spec,
  };
}
