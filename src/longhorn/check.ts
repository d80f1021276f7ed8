import { Duration } from 'cdk8s';
import { IConstruct } from 'constructs';
import { LonghornInventory } from './inventory';
import { LonghornReplicaScheduling, ResolvedScheduling } from './options';
import { LonghornPlacementPlan } from './placement-plan';
import { planPlacement } from './planner';
import { standardLabels } from '../kubernetes/standard-labels';
import { describe, invalidProp } from '../shared/errors';
import { addWarning } from '../shared/warnings';

/** Longhorn's namespace, where its Volume and Setting resources live. */
export const LONGHORN_NAMESPACE = 'longhorn-system';

/** The standard labels of every object this library emits for Longhorn. */
export function longhornLabels(scope: IConstruct, component: string): { [key: string]: string } {
  return standardLabels('longhorn', scope.node.id, component);
}

/**
 * The synth-time placement check of a StorageClass or Volume: plans the replicas on the inventory, throws
 * when they cannot all be placed (the message names the level that could not be honoured), and reports a
 * degraded placement and applicable upstream bugs as warnings.
 */
export function checkPlacement(
  scope: IConstruct, where: string, inventory: LonghornInventory, resolved: ResolvedScheduling, size: number,
): LonghornPlacementPlan {
  const plan = planPlacement(where, inventory, resolved, size, []);
  if (!plan.complete) {
    throw invalidProp(where, 'numberOfReplicas', resolved.replicas, `cannot be placed on the inventory: ${plan.failure}`);
  }
  for (const warning of plan.warnings) addWarning(scope, warning);
  return plan;
}

/** Longhorn's `staleReplicaTimeout` is whole minutes, at least 1. */
export function staleReplicaTimeoutMinutes(where: string, timeout: Duration): number {
  const minutes = timeout.toMinutes({ integral: false });
  if (!Number.isInteger(minutes) || minutes < 1) {
    throw invalidProp(where, 'staleReplicaTimeout', timeout.toHumanString(), 'must be a whole number of minutes, at least 1');
  }
  return minutes;
}

/**
 * Adds the escape hatch's entries to what the typed props produced. A key set both ways is refused: one
 * of the two values would be silently lost.
 */
export function mergeExtra<T>(
  where: string,
  prop: string,
  typed: { [key: string]: T },
  extra: { [key: string]: T } = {},
): { [key: string]: T } {
  for (const key of Object.keys(extra)) {
    if (key in typed) {
      throw invalidProp(where, `${prop}.${key}`, extra[key], `conflicts with the typed prop that sets ${key}=${describe(typed[key])}: set it one way`);
    }
  }
  return { ...typed, ...extra };
}

/**
 * The enum-valued scheduling options the user set, by their Longhorn name (the same in a StorageClass's
 * parameters and a Volume's spec). Unset options are left out, so Longhorn's global settings decide.
 */
export function enumOptions(props: LonghornReplicaScheduling): { [key: string]: string } {
  const options: { [key: string]: string | undefined } = {
    replicaSoftAntiAffinity: props.replicaSoftAntiAffinity,
    replicaZoneSoftAntiAffinity: props.replicaZoneSoftAntiAffinity,
    replicaDiskSoftAntiAffinity: props.replicaDiskSoftAntiAffinity,
    dataLocality: props.dataLocality,
    replicaAutoBalance: props.replicaAutoBalance,
    dataEngine: props.dataEngine,
  };
  return Object.fromEntries(Object.entries(options).filter((e): e is [string, string] => e[1] !== undefined));
}
