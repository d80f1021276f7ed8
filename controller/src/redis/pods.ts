/**
 * Kubernetes mode of the Redis cluster manager (pure part): the pods of one `ZonalRedisCluster` -> the
 * manager's inventory. A pod's zone is its own zone label (`cdk8s-zones.dev/zone`, the zone its StatefulSet
 * pins it to), so the manager needs neither the pod's node nor read access to nodes.
 */
import { InventoryNode } from './model';
import { ZONE_LABEL } from '../../../src/contract/labels';
import { REDIS_PASSWORD_ENV, REDIS_PORT, redisNodeOfPod } from '../../../src/contract/redis';
import { KubeObject } from '../kube/api';

export interface PodInventory {
  readonly nodes: InventoryNode[];
  /** Pods left out, and why (no IP yet, terminating). */
  readonly skipped: string[];
  /** The Secret key the pods read their password from, if any. */
  readonly passwordSecret?: { readonly name: string; readonly key: string };
}

export function inventoryFromPods(cluster: string, pods: KubeObject[]): PodInventory {
  const out: InventoryNode[] = [];
  const skipped: string[] = [];
  let passwordSecret: PodInventory['passwordSecret'];
  for (const pod of [...pods].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    const name: string = pod.metadata.name;
    const node = redisNodeOfPod(cluster, name);
    if (node === undefined) {
      skipped.push(`${name}: not named ${cluster}-<zone>-<ordinal>`);
      continue;
    }
    if (pod.metadata.deletionTimestamp) {
      skipped.push(`${name}: terminating`);
      continue;
    }
    const ip: string | undefined = pod.status?.podIP;
    if (!ip) {
      skipped.push(`${name}: no pod IP yet`);
      continue;
    }
    const zone: string | undefined = pod.metadata.labels?.[ZONE_LABEL];
    if (!zone) {
      skipped.push(`${name}: zone unknown (no ${ZONE_LABEL} label)`);
      continue;
    }
    const env: any[] = pod.spec?.containers?.[0]?.env ?? [];
    const ref = env.find((e) => e.name === REDIS_PASSWORD_ENV)?.valueFrom?.secretKeyRef;
    if (ref?.name && ref?.key) passwordSecret = { name: ref.name, key: ref.key };
    const host = ip.includes(':') ? `[${ip}]` : ip;
    out.push({ name: node, zone, address: `${host}:${REDIS_PORT}` });
  }
  return { nodes: out, skipped, passwordSecret };
}
