/**
 * A workload's opt-in to the zonal shift's traffic part: its pods name the readiness gate
 * `cdk8s-zones.dev/zone-in-service`, which the runtime controller keeps True outside a shift (in the same pass that
 * annotates the pod's zone) and False in a zone a ZoneShift takes out of service: the pods there leave their
 * Services' endpoints. The controller is then on the pods' readiness path: docs/runbooks/zone-impaired.md.
 */
import { IConstruct } from 'constructs';
import { CONTROLLER_PROP, describeController, IZoneController } from './controller-reference';
import { ZONE_ANNOTATOR_FEATURE, ZONE_SHIFT_FEATURE } from './features';
import { ZoneAnnotation } from '../contract/zone-annotation';
import { ZONE_IN_SERVICE_CONDITION } from '../contract/zone-shift';
import { pinnedZone } from '../kubernetes/pinned-zone';
import { transformRendered, workloadApiObject } from '../kubernetes/workload';
import { invalidProp } from '../shared/errors';
import { checkArg } from '../shared/props';
import { addWarning } from '../shared/warnings';

/** The workloads whose pods a gate can hold: those with one pod template. */
const GATED_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'];
/**
 * Why a shift of the zone that holds the workload's pods would keep them in service (the fail-safe never takes a
 * workload's last pods that can serve): pinned to one zone, or one replica. Undefined when the gate can take them.
 */
export function failSafeHoldsAll(json: { readonly kind?: string; readonly spec?: any }): string | undefined {
  const zone = pinnedZone(json.spec?.template?.spec);
  if (zone !== undefined && json.kind !== 'DaemonSet') return `its pods are pinned to zone ${zone}`;
  if (json.kind !== 'DaemonSet' && json.spec?.replicas === 1) return 'it runs 1 replica';
  return undefined;
}

/** Adds the gate and the zone annotator's opt-in label to `workload`'s pod template, as rendered. */
export function addZoneShiftGate(workload: IConstruct, controller: IZoneController): void {
  const where = 'ZoneController.addZoneShiftGate';
  const api = workloadApiObject(where, 'workload', workload, GATED_KINDS);
  checkArg(where, 'controller', controller, CONTROLLER_PROP);
  const missing = [ZONE_ANNOTATOR_FEATURE, ZONE_SHIFT_FEATURE]
    .filter((f) => !controller.reconcilers.includes(f.reconciler));
  if (missing.length > 0) {
    throw invalidProp(where, 'controller', describeController(controller),
      `must run ${missing.map((f) => `${f.reconciler} (${f.prop}: true)`).join(' and ')}: it sets the gate's condition, ` +
      'without which the pods never become Ready');
  }
  let warned = false; // a workload is rendered more than once (validation, synth): said once
  transformRendered(api, (json) => {
    const heldAll = failSafeHoldsAll(json);
    if (heldAll !== undefined && !warned) {
      warned = true;
      addWarning(workload, `${where}: ${heldAll}, so a shift of its zone keeps its pods in service (the fail-safe never ` +
        'takes a workload\'s last pods that can serve): the gate does not take it out of that zone. Spread it over ' +
        'zones with more than one replica (Zonal.spread) for the shift to move its traffic.');
    }
    const template = json.spec?.template ?? {};
    const gates: readonly { readonly conditionType: string }[] = template.spec?.readinessGates ?? [];
    const gated = gates.some((g) => g.conditionType === ZONE_IN_SERVICE_CONDITION);
    const readinessGates = gated ? gates : [...gates, { conditionType: ZONE_IN_SERVICE_CONDITION }];
    const spec = { ...template.spec, readinessGates };
    const labels = { ...template.metadata?.labels, [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE };
    const metadata = { ...template.metadata, labels };
    return { ...json, spec: { ...json.spec, template: { ...template, metadata, spec } } };
  });
}
