/**
 * How the zone-aware-update reconciler rolls a Deployment (pure, unit-tested): the Deployment is paused
 * with strategy Recreate, so its controller neither creates ReplicaSets nor moves pods; this module
 * creates the new ReplicaSet and turns each planned batch into ReplicaSet scalings (new up, then old down)
 * with the batch's pods marked as the cheapest to delete. See docs/rollouts.md.
 */
import { createHash } from 'crypto';
import { isActive, isReady, isTerminating } from '../../../src/kubernetes/pod-life';
import { RolloutPod } from '../../../src/rollout/update-plan';
import { isControlledBy, KubeObject } from '../kube/api';
import { canonical } from '../kube/canonical';

/** The label a Deployment's ReplicaSets and pods carry to tell revisions apart. */
export const TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** The ReplicaSet controller removes pods with the lowest cost first. */
export const DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
export const BATCH_DELETION_COST = '-2147483648';
const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

function withoutHash(template: any): unknown {
  const labels = { ...(template?.metadata?.labels ?? {}) };
  delete labels[TEMPLATE_HASH_LABEL];
  return { ...template, metadata: { ...(template?.metadata ?? {}), labels } };
}

/** True when a ReplicaSet runs the Deployment's current template (the Deployment controller's test). */
export function runsTemplate(rs: KubeObject, deployment: KubeObject): boolean {
  return canonical(withoutHash(rs.spec?.template)) === canonical(withoutHash(deployment.spec?.template));
}

/** A template hash in the Deployment controller's alphabet (no vowels, no look-alike digits). */
export function templateHash(template: unknown): string {
  const n = createHash('sha256').update(canonical(withoutHash(template))).digest().readUInt32BE(0);
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...String(n)].map((c) => alphabet[c.charCodeAt(0) % alphabet.length]).join('');
}

/** The Deployment's ReplicaSets (controlled by it). */
export function ownedReplicaSets(deployment: KubeObject, replicaSets: readonly KubeObject[]): KubeObject[] {
  return replicaSets.filter((rs) => isControlledBy(rs, deployment.metadata.uid));
}

/** The new ReplicaSet the controller creates for the Deployment's template (0 replicas). */
export function newReplicaSet(deployment: KubeObject, owned: readonly KubeObject[]): KubeObject {
  const template = deployment.spec.template;
  const hash = templateHash(template);
  const revision = Math.max(0, ...owned.map((rs) => Number(rs.metadata.annotations?.[REVISION_ANNOTATION] ?? 0))) + 1;
  const replicas = String(deployment.spec.replicas ?? 1);
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${deployment.metadata.name}-${hash}`,
      namespace: deployment.metadata.namespace,
      labels: { ...(template.metadata?.labels ?? {}), [TEMPLATE_HASH_LABEL]: hash },
      annotations: {
        [REVISION_ANNOTATION]: String(revision),
        'deployment.kubernetes.io/desired-replicas': replicas,
        'deployment.kubernetes.io/max-replicas': replicas,
      },
      ownerReferences: [{
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: deployment.metadata.name,
        uid: deployment.metadata.uid!,
        controller: true,
      }],
    },
    spec: {
      replicas: 0,
      minReadySeconds: deployment.spec.minReadySeconds ?? 0,
      selector: {
        ...deployment.spec.selector,
        matchLabels: { ...(deployment.spec.selector?.matchLabels ?? {}), [TEMPLATE_HASH_LABEL]: hash },
      },
      template: {
        ...template,
        metadata: {
          ...(template.metadata ?? {}),
          labels: { ...template.metadata?.labels, [TEMPLATE_HASH_LABEL]: hash },
        },
      },
    },
  };
}

/** Why the Deployment cannot be rolled by the controller, or undefined. */
export function deploymentProblem(deployment: KubeObject): string | undefined {
  const strategy = deployment.spec?.strategy?.type ?? 'RollingUpdate';
  if (deployment.spec?.paused !== true || strategy !== 'Recreate') {
    return `Deployment ${deployment.metadata.name} must be paused (spec.paused: true, now ${deployment.spec?.paused ?? false}) with strategy Recreate ` +
      `(now ${strategy}), or the Deployment controller rolls or rescales the pods itself`;
  }
  return undefined;
}

/** Why the ReplicaSets have not caught up with their spec (so the pods seen are not yet what they will be). */
export function unsettled(owned: readonly KubeObject[], pods: readonly KubeObject[]): string | undefined {
  for (const rs of owned) {
    const want = rs.spec?.replicas ?? 1;
    const active = pods.filter((p) => isActive(p) && isControlledBy(p, rs.metadata.uid)).length;
    const observed = rs.status?.observedGeneration ?? 0;
    const generation = rs.metadata.generation ?? 0;
    if (observed < generation || (rs.status?.replicas ?? 0) !== want || active !== want) {
      const lag = observed < generation ? ` (its controller has seen generation ${observed} of ${generation})` : '';
      return `waiting for ReplicaSet ${rs.metadata.name}: ${want} wanted, status ${rs.status?.replicas ?? 0}, ${active} pods seen${lag}`;
    }
  }
  return undefined;
}

/**
 * The pods of the Deployment's ReplicaSets as the planner sees them (newest first within a zone); an ended pod
 * (Failed, Succeeded) is none of them: its ReplicaSet has replaced it, and scaling it down for that pod would take
 * a running one.
 */
export function deploymentPods(
  owned: readonly KubeObject[], pods: readonly KubeObject[], zoneOf: (pod: KubeObject) => string | undefined,
): RolloutPod[] {
  const uids = new Set(owned.map((rs) => rs.metadata.uid));
  return pods
    .filter((p) => p.metadata.ownerReferences?.some((o) => o.controller && uids.has(o.uid)))
    .filter((p) => isActive(p) || isTerminating(p))
    .map((p) => ({
      name: p.metadata.name,
      order: Date.parse(p.metadata.creationTimestamp ?? '') || 0,
      zone: zoneOf(p),
      revision: p.metadata.labels?.[TEMPLATE_HASH_LABEL] ?? '',
      ready: isReady(p),
      terminating: isTerminating(p),
    }));
}

export interface Scaling {
  /** The new ReplicaSet and its replicas after the batch, when it grows in the same step. */
  readonly up?: { readonly name: string; readonly replicas: number };
  /** Each old ReplicaSet losing pods, and its replicas after the batch. */
  readonly down: Array<{ readonly name: string; readonly replicas: number }>;
}

/**
 * The scalings that replace `batch` (pod names) with pods of `newRs`. The old ReplicaSets shrink now; the
 * new one grows once the batch's pods are gone (`resize`), so the scheduler puts the replacements where
 * the batch left room (its zone, under the workload's spread constraints). Only the first batch grows the
 * new ReplicaSet in the same step, first: while the old ReplicaSet is the only one with replicas, the paused
 * Deployment controller would scale it back to the Deployment's replicas.
 */
export function scalingFor(
  batch: readonly string[],
  newRs: KubeObject,
  owned: readonly KubeObject[],
  pods: readonly KubeObject[],
): Scaling {
  const down = owned
    .filter((rs) => rs !== newRs)
    .map((rs) => {
      const leaving = pods.filter((p) => batch.includes(p.metadata.name) && isControlledBy(p, rs.metadata.uid)).length;
      return { name: rs.metadata.name, replicas: (rs.spec?.replicas ?? 1) - leaving, leaving };
    })
    .filter((d) => d.leaving > 0)
    .map(({ name, replicas }) => ({ name, replicas }));
  const current: number = newRs.spec?.replicas ?? 0;
  return current === 0 ? { up: { name: newRs.metadata.name, replicas: batch.length }, down } : { down };
}

/**
 * When the ReplicaSets' replicas do not add up to the Deployment's (a new or rescaled Deployment: paused, its
 * own controller does not do it), the scaling that fixes it: the new ReplicaSet takes the difference, and
 * gives back first when there are too many.
 */
export function resize(deployment: KubeObject, newRs: KubeObject, owned: readonly KubeObject[]): Scaling | undefined {
  const want: number = deployment.spec?.replicas ?? 1;
  const sum = owned.reduce((s, rs) => s + (rs.spec?.replicas ?? 1), 0);
  if (sum === want) return undefined;
  const current: number = newRs.spec?.replicas ?? 0;
  if (sum < want) return { up: { name: newRs.metadata.name, replicas: current + want - sum }, down: [] };

  let excess = sum - want;
  const down: Array<{ name: string; replicas: number }> = [];
  for (const rs of [newRs, ...owned.filter((o) => o !== newRs)]) {
    const has: number = rs.spec?.replicas ?? 1;
    const take = Math.min(has, excess);
    if (take > 0) down.push({ name: rs.metadata.name, replicas: has - take });
    excess -= take;
  }
  const name = newRs.metadata.name;
  const replicas = down.find((d) => d.name === name)?.replicas ?? current;
  return { up: { name, replicas }, down: down.filter((d) => d.name !== name) };
}
