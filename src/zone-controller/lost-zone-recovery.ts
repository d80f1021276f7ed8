/**
 * A StatefulSet's opt-in to the lost-zone recovery: its annotation `cdk8s-zones.dev/lost-zone-recovery` says how many
 * of its pods may come back at once, and the controller that runs `lostZoneRecovery` is granted, in its namespace,
 * the deletion of its pods and claims. Only for data replicated to other zones (src/contract/lost-zone.ts).
 */
import { IConstruct } from 'constructs';
import { CONTROLLER_PROP, IZoneController } from './controller-reference';
import { LOST_ZONE_RECOVERY_FEATURE } from './features';
import { serveWith } from './requirements';
import { LOST_ZONE_RECOVERY_ANNOTATION, recoveryAnnotationProblem } from '../contract/lost-zone';
import { transformRendered, workloadApiObject } from '../kubernetes/workload';
import { invalidProp } from '../shared/errors';
import { checkArg, Props } from '../shared/props';

export function recoverFromLostZone(statefulSet: IConstruct, controller: IZoneController, atOnce: number): void {
  const where = 'ZoneController.recoverFromLostZone';
  const api = workloadApiObject(where, 'statefulSet', statefulSet, ['StatefulSet']);
  checkArg(where, 'controller', controller, CONTROLLER_PROP);
  checkArg(where, 'atOnce', atOnce, Props.integer(1));
  serveWith(where, controller, LOST_ZONE_RECOVERY_FEATURE, { namespace: api.metadata.namespace });
  transformRendered(api, (json) => {
    const problem = recoveryAnnotationProblem(String(atOnce), Number(json.spec?.replicas ?? 1));
    if (problem) throw invalidProp(`${where} '${statefulSet.node.path}'`, 'atOnce', atOnce, problem);
    const annotations = { ...json.metadata?.annotations, [LOST_ZONE_RECOVERY_ANNOTATION]: String(atOnce) };
    return { ...json, metadata: { ...json.metadata, annotations } };
  });
}
