/**
 * Kubernetes mode of the Redis cluster manager (pure part): the pods of one `ZonalRedisCluster` and their
 * nodes -> the manager's inventory. A pod's zone is its node's topology label; a pod not yet bound (or on
 * a node without the label) falls back to the zone its StatefulSet pins it to (`cdk8s-zones.dev/zone`).
 */
import { InventoryNode } from './model';
import { ZONE_LABEL } from '../../../src/contract/labels';
import { REDIS_PORT } from '../../../src/contract/redis';
import { KubeObject } from '../kube/api';

export interface PodInventory {
  readonly nodes: InventoryNode[];
  /** Pods left out, and why (no IP yet, terminating). */
  readonly skipped: string[];
  /** The Secret key the pods read their password from, if any. */
  readonly passwordSecret?: { readonly name: string; readonly key: string };
}

export function inventoryFromPods(cluster: string, pods: KubeObject[], nodes: Map<string, KubeObject>, zoneKey: string): PodInventory {
  const out: InventoryNode[] = [];
  const skipped: string[] = [];
  let passwordSecret: PodInventory['passwordSecret'];
  for (const pod of [...pods].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    const name: string = pod.metadata.name;
    if (!name.startsWith(`${cluster}-`)) {
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
    const node = pod.spec?.nodeName ? nodes.get(pod.spec.nodeName) : undefined;
    const zone: string | undefined = node?.metadata.labels?.[zoneKey] ?? pod.metadata.labels?.[ZONE_LABEL];
    if (!zone) {
      skipped.push(`${name}: zone unknown (node without ${zoneKey}, pod without ${ZONE_LABEL})`);
      continue;
    }
    const env: any[] = pod.spec?.containers?.[0]?.env ?? [];
    const ref = env.find((e) => e.name === 'REDIS_PASSWORD')?.valueFrom?.secretKeyRef;
    if (ref?.name && ref?.key) passwordSecret = { name: ref.name, key: ref.key };
    const host = ip.includes(':') ? `[${ip}]` : ip;
    out.push({ name: name.slice(cluster.length + 1), zone, address: `${host}:${REDIS_PORT}` });
  }
  return { nodes: out, skipped, passwordSecret };
}
