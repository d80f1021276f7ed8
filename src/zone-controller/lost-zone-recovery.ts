/**
 * A StatefulSet's opt-in to the lost-zone recovery: its annotation `cdk8s-zones.dev/lost-zone-recovery` says how many
 * of its pods may come back at once, and the controller that runs `lostZoneRecovery` is granted, in its namespace,
 * the deletion of its pods and claims. Only for data replicated to other zones (src/contract/lost-zone.ts).
 *
 * A StatefulSet pinned to one zone (one of a zone group: a StatefulSet per zone) also gets, ORed with its zone term,
 * the stand-in term of that zone, so that its pods can come back on the other zones' nodes once the controller
 * labels them; its zone group is where its data lives on.
 */
import { IConstruct } from 'constructs';
import { CONTROLLER_PROP, IZoneController } from './controller-reference';
import { LOST_ZONE_RECOVERY_FEATURE } from './features';
import { serveWith } from './requirements';
import {
  LOST_ZONE_RECOVERY_ANNOTATION, recoveryAnnotationProblem, recoveryPin, standInLabel, standInTerm, standInZoneOfTerm,
} from '../contract/lost-zone';
import { annotatedReplicas, REPLICAS_ANNOTATION, ZONE_GROUP_ANNOTATION } from '../contract/zone-check';
import { labelKeyProblem } from '../kubernetes/kubernetes-names';
import { requiredNodeTerms, WELL_KNOWN_ZONE_KEYS } from '../kubernetes/pinned-zone';
import { RenderedWorkload, transformRendered, workloadApiObject } from '../kubernetes/workload';
import { invalidProp } from '../shared/errors';
import { checkArg, Props } from '../shared/props';

/**
 * Opts `statefulSet` in. `pinnedTo`: the zone its pods are pinned to, where its construct knows it (by a zone label
 * other than the well-known ones); else found from its template's zone terms, or its stand-in term.
 */
export function recoverFromLostZone(
  statefulSet: IConstruct, controller: IZoneController, atOnce: number, pinnedTo?: string,
): void {
  const where = 'ZoneController.recoverFromLostZone';
  const api = workloadApiObject(where, 'statefulSet', statefulSet, ['StatefulSet']);
  checkArg(where, 'controller', controller, CONTROLLER_PROP);
  checkArg(where, 'atOnce', atOnce, Props.integer(1));
  serveWith(where, controller, LOST_ZONE_RECOVERY_FEATURE, { namespace: api.metadata.namespace });
  transformRendered(api, (json) => {
    const construct = `${where} '${statefulSet.node.path}'`;
    const zone = pinnedTo ?? pinnedZoneOf(json);
    const replicas = json.spec?.replicas ?? annotatedReplicas(json.metadata?.annotations?.[REPLICAS_ANNOTATION]) ?? 1;
    const problem = recoveryAnnotationProblem(String(atOnce), Number(replicas), zone !== undefined);
    if (problem) throw invalidProp(construct, 'atOnce', atOnce, problem);
    const annotations = { ...json.metadata?.annotations, [LOST_ZONE_RECOVERY_ANNOTATION]: String(atOnce) };
    const annotated = { ...json, metadata: { ...json.metadata, annotations } };
    if (zone === undefined) return annotated;
    const pinProblem = standInProblem(json, zone);
    if (pinProblem) throw invalidProp(construct, 'statefulSet', json.metadata?.name, `its pods are pinned to zone ${zone} ${pinProblem}`);
    return withStandInTerm(annotated, zone);
  });
}

/** The zone a rendered StatefulSet pins its pods to: by its stand-in term, or by a well-known zone label. */
function pinnedZoneOf(json: RenderedWorkload): string | undefined {
  const spec = json.spec?.template?.spec;
  const declared = requiredNodeTerms(spec).map(standInZoneOfTerm).find((z) => z !== undefined);
  return declared ?? recoveryPin(spec, WELL_KNOWN_ZONE_KEYS).zone;
}

/** Why a StatefulSet pinned to `zone` cannot stand in elsewhere, or undefined. */
function standInProblem(json: RenderedWorkload, zone: string): string | undefined {
  const spec = json.spec?.template?.spec;
  if (WELL_KNOWN_ZONE_KEYS.some((k) => spec?.nodeSelector?.[k] !== undefined)) {
    return 'by a nodeSelector, which a stand-in term cannot widen (it is ANDed): pin them by a required node affinity ' +
      'term instead';
  }
  if (json.metadata?.annotations?.[ZONE_GROUP_ANNOTATION] === undefined) {
    return 'and their data lives on only in the other zones\' StatefulSets of their zone group, but it names none: ' +
      `annotate each with ${ZONE_GROUP_ANNOTATION} (the same value), and opt each in`;
  }
  const labelProblem = labelKeyProblem(standInLabel(zone));
  return labelProblem ? `and their stand-in label ${standInLabel(zone)} ${labelProblem}` : undefined;
}

/** `json` with the stand-in term of `zone` ORed with its required node affinity terms (once). */
function withStandInTerm(json: RenderedWorkload, zone: string): RenderedWorkload {
  const template = json.spec!.template!;
  const podSpec = template.spec ?? {};
  const terms = requiredNodeTerms(podSpec);
  if (terms.some((t) => standInZoneOfTerm(t) === zone)) return json;
  const nodeAffinity = podSpec.affinity?.nodeAffinity ?? {};
  const nodeSelectorTerms = [...terms, standInTerm(zone)];
  const required = { ...nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, nodeSelectorTerms };
  const affinity = {
    ...podSpec.affinity,
    nodeAffinity: { ...nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: required },
  };
  return { ...json, spec: { ...json.spec, template: { ...template, spec: { ...podSpec, affinity } } } };
}
