/**
 * Kubernetes mode of the Redis cluster manager (pure part): the pods of one `ZonalRedisCluster` -> the
 * manager's inventory. A pod's zone is its own zone label (`cdk8s-zones.dev/zone`, the zone its StatefulSet
 * pins it to), so the manager needs neither the pod's node nor read access to nodes. A pod that may stand in
 * outside that zone (the cluster's lostZoneRecovery) opts in to the zone annotator, and its zone is then the one
 * the annotator read from its node: until it is annotated, it is not counted.
 *
 * The manager sends the password to every pod it counts, so a label is not enough: only a pod of one of the
 * cluster's own StatefulSets (`<cluster>-<zone slug>`, its controller) counts, and the password Secret is
 * the one those pods mount.
 */
import { InventoryNode, joinAddress } from './model';
import { ZONE_LABEL } from '../../../src/contract/labels';
import { REDIS_PASSWORD_FILE, REDIS_PASSWORD_VOLUME, REDIS_PORT, redisNodeOfPod, redisStatefulSetNames } from '../../../src/contract/redis';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { isTerminating } from '../../../src/kubernetes/pod-life';
import { KubeObject } from '../kube/api';

/** The key of a Secret that holds a password. */
export interface SecretKey {
  readonly name: string;
  readonly key: string;
}

export interface PodInventory {
  readonly nodes: InventoryNode[];
  /** Pods left out, and why (not the cluster's, no IP yet, terminating). */
  readonly skipped: string[];
  /** The Secret key the counted pods read their password from (undefined when none mounts one). */
  readonly passwordSecret?: SecretKey;
}

/**
 * The inventory of cluster `cluster` (whose layout spans `zones`) from the pods labelled with its name.
 * Throws when the counted pods mount different password Secrets: no password is sent anywhere then.
 */
export function inventoryFromPods(cluster: string, zones: readonly string[], pods: KubeObject[]): PodInventory {
  const statefulSets = new Set(redisStatefulSetNames(cluster, zones));
  const out: InventoryNode[] = [];
  const skipped: string[] = [];
  const secrets = new Map<string, { secret: SecretKey; pods: string[] }>();
  for (const pod of [...pods].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    const name: string = pod.metadata.name;
    const node = redisNodeOfPod(cluster, name);
    if (node === undefined) {
      skipped.push(`${name}: not named ${cluster}-<zone>-<ordinal>`);
      continue;
    }
    const foreign = notOwnedBy(pod, statefulSets);
    if (foreign) {
      skipped.push(`${name}: ${foreign}`);
      continue;
    }
    if (isTerminating(pod)) {
      skipped.push(`${name}: terminating`);
      continue;
    }
    const ip: string | undefined = pod.status?.podIP;
    if (!ip) {
      skipped.push(`${name}: no pod IP yet`);
      continue;
    }
    const zone = zoneOfPod(pod);
    if (typeof zone !== 'string') {
      skipped.push(`${name}: ${zone.unknown}`);
      continue;
    }
    const secret = passwordSecretOf(pod);
    if (secret) {
      const key = JSON.stringify(secret);
      secrets.set(key, { secret, pods: [...(secrets.get(key)?.pods ?? []), name] });
    }
    out.push({ name: node, zone, address: joinAddress(ip, REDIS_PORT) });
  }
  if (secrets.size > 1) {
    const which = [...secrets.values()].map((s) => `Secret ${s.secret.name} key ${s.secret.key} (${s.pods.join(', ')})`);
    throw new Error(`the pods of cluster ${cluster} mount different password Secrets: ${which.join('; ')}; restart them so they agree`);
  }
  return { nodes: out, skipped, passwordSecret: [...secrets.values()][0]?.secret };
}

/**
 * Why a pod is not one of the cluster's StatefulSet pods (`<statefulset>-<ordinal>`, controlled by one of
 * `statefulSets`), or undefined when it is.
 */
function notOwnedBy(pod: KubeObject, statefulSets: ReadonlySet<string>): string | undefined {
  const owner = pod.metadata.ownerReferences?.find((o) => o.controller === true);
  if (!owner || owner.kind !== 'StatefulSet' || !owner.apiVersion.startsWith('apps/')) {
    return `not controlled by a StatefulSet${owner ? ` (but by ${owner.kind} ${owner.name})` : ''}: not sent the password`;
  }
  const ordinal = pod.metadata.name.startsWith(`${owner.name}-`) ? pod.metadata.name.slice(owner.name.length + 1) : '';
  if (!statefulSets.has(owner.name) || !/^\d+$/.test(ordinal)) {
    return `controlled by StatefulSet ${owner.name}, not one of ${[...statefulSets].join(', ')}: not sent the password`;
  }
  return undefined;
}

/** The zone a pod runs in: its node's (the zone annotation) where it opts in to the annotator, else its zone label. */
function zoneOfPod(pod: KubeObject): string | { unknown: string } {
  if (pod.metadata.labels?.[ZoneAnnotation.OPT_IN_LABEL] === ZoneAnnotation.OPT_IN_VALUE) {
    const annotated: string | undefined = pod.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION];
    return annotated || { unknown: `zone not annotated yet (the zone annotator writes ${ZoneAnnotation.VALUE_ANNOTATION} once it is bound)` };
  }
  return pod.metadata.labels?.[ZONE_LABEL] || { unknown: `zone unknown (no ${ZONE_LABEL} label)` };
}

/** The Secret key a pod mounts as its password file (the contract's volume and item path). */
function passwordSecretOf(pod: KubeObject): SecretKey | undefined {
  const volume = (pod.spec?.volumes ?? []).find((v: any) => v.name === REDIS_PASSWORD_VOLUME);
  const item = (volume?.secret?.items ?? []).find((i: any) => i.path === REDIS_PASSWORD_FILE);
  return volume?.secret?.secretName && item?.key ? { name: volume.secret.secretName, key: item.key } : undefined;
}

/**
 * The pods to count while some pods the manager deleted (`deleted`: node -> the deleted pod's uid) have no
 * successor listed yet. A deleted pod's process may answer for a moment after the delete, and the pod may be
 * listed as it was until the watch shows it terminating: counted, it would look like its node back in sync, and
 * a failover to it would pause its shard's writes until Redis gives the failover up. `pending` keeps the
 * deletions whose node has no pod of another uid yet and is still planned (`planned`).
 */
export function withoutDeletedPods(
  cluster: string, pods: readonly KubeObject[], deleted: ReadonlyMap<string, string>, planned: ReadonlySet<string>,
): { pods: KubeObject[]; skipped: string[]; pending: Map<string, string> } {
  const successorListed = (node: string, uid: string) =>
    pods.some((p) => redisNodeOfPod(cluster, p.metadata.name) === node && p.metadata.uid !== uid);
  const pending = new Map([...deleted].filter(([node, uid]) => planned.has(node) && !successorListed(node, uid)));
  const isDeleted = (p: KubeObject) => pending.get(redisNodeOfPod(cluster, p.metadata.name) ?? '') === p.metadata.uid;
  return {
    pods: pods.filter((p) => !isDeleted(p)),
    skipped: pods.filter(isDeleted).map((p) => `${p.metadata.name}: deleted by the manager, its successor not listed yet`),
    pending,
  };
}
