/**
 * Which nodes carry which stand-in labels (pure). A StatefulSet pinned to a zone with a stand-in term
 * (`standInTerm`) may run on nodes labelled `stand-in.cdk8s-zones.dev/<its zone>`. Those labels are needed while
 * its zone is declared lost (its pods come back on them), and for as long as any of its pods, or their claims, are
 * outside its zone: a stand-in restarted months later must still find a node beside its volume. They are on every
 * node of the other zones then, and on none otherwise, so a zone that never was lost has no stand-ins.
 */
import { STAND_IN_LABEL_DOMAIN, standInLabel } from '../contract/lost-zone';

/** An opted-in StatefulSet pinned to `zone`, with the stand-in term of that zone. */
export interface StandInWorkload {
  readonly namespace: string;
  readonly name: string;
  readonly zone: string;
  /** Its volume claim templates' names (a pod's claim is `<template>-<pod>`). */
  readonly claimTemplates: readonly string[];
}

export interface StandInInput {
  /** The zones declared lost by a ZoneShift in force. */
  readonly lostZones: readonly string[];
  readonly workloads: readonly StandInWorkload[];
  /** The pods of those StatefulSets, with their node's zone (undefined: not scheduled). */
  readonly pods: ReadonlyArray<{ readonly namespace: string; readonly statefulSet: string; readonly zone?: string }>;
  /** The claims, with the zone of the volume each is bound to. */
  readonly claims: ReadonlyArray<{ readonly namespace: string; readonly name: string; readonly zone?: string }>;
  readonly nodes: readonly StandInNode[];
}

export interface StandInNode {
  readonly name: string;
  readonly zone?: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** The stand-in labels to set (`"true"`) or remove (`null`) on a node. */
export interface NodeLabelChange {
  readonly node: string;
  readonly labels: Readonly<Record<string, string | null>>;
}

/** The zones whose pinned pods need stand-in nodes now: lost, or with a pod or claim of theirs outside them. */
export function standInZones(input: StandInInput): string[] {
  const zones = new Set<string>();
  for (const w of input.workloads) {
    const claimOfPod = (claim: string) => w.claimTemplates.some((t) => {
      const prefix = `${t}-${w.name}-`;
      return claim.startsWith(prefix) && /^\d+$/.test(claim.slice(prefix.length));
    });
    const outside = (item: { namespace: string; zone?: string }) => item.namespace === w.namespace
      && item.zone !== undefined && item.zone !== w.zone;
    const podOutside = input.pods.some((p) => p.statefulSet === w.name && outside(p));
    const claimOutside = input.claims.some((c) => claimOfPod(c.name) && outside(c));
    if (input.lostZones.includes(w.zone) || podOutside || claimOutside) zones.add(w.zone);
  }
  return [...zones].sort();
}

/** The changes that put exactly the stand-in labels of `standInZones` on the nodes of the other zones. */
export function standInLabelChanges(input: StandInInput): NodeLabelChange[] {
  const zones = standInZones(input);
  return input.nodes.flatMap((node) => {
    const wanted = new Set(zones.filter((z) => node.zone !== undefined && node.zone !== z).map(standInLabel));
    const has = Object.keys(node.labels).filter((k) => k.startsWith(`${STAND_IN_LABEL_DOMAIN}/`));
    const labels: Record<string, string | null> = {};
    for (const key of wanted) if (node.labels[key] !== 'true') labels[key] = 'true';
    for (const key of has) if (!wanted.has(key)) labels[key] = null;
    return Object.keys(labels).length > 0 ? [{ node: node.name, labels }] : [];
  });
}
