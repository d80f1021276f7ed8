/**
 * The label and annotation keys the library writes and the runtime controller reads, and the node labels
 * Kubernetes itself defines. Pure data: the one home of every such key.
 */

/** The domain of the project: the prefix of its labels and annotations, and the API group of its resources. */
export const PROJECT_DOMAIN = 'cdk8s-zones.dev';

/** The well-known node label for the zone (set by cloud providers and kubelet). */
export const WELL_KNOWN_ZONE_KEY = 'topology.kubernetes.io/zone';
/** The well-known node label for the region. */
export const WELL_KNOWN_REGION_KEY = 'topology.kubernetes.io/region';
/** The well-known node label for the node's hostname. */
export const WELL_KNOWN_HOSTNAME_KEY = 'kubernetes.io/hostname';
/** The label a StatefulSet puts on each of its pods with the pod's own name. */
export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';

/**
 * The zone an object or pod belongs to, on everything the library pins to one zone (per-zone StatefulSets,
 * shards, Prometheus resources). The value is the zone exactly as the topology names it (a label value),
 * so the runtime controller reads a pod's zone from its own labels.
 */
export const ZONE_LABEL = `${PROJECT_DOMAIN}/zone`;
/** The shard a standalone Prometheus pod belongs to (`<zone slug>-<index>`, or the index in address mode). */
export const SHARD_LABEL = `${PROJECT_DOMAIN}/shard`;
/** The Prometheus resources of one `TopologyShardedPrometheus` (the operator's pods carry it too). */
export const INSTANCE_LABEL = `${PROJECT_DOMAIN}/instance`;
/** The members of one Loki memberlist ring (direct output). */
export const LOKI_MEMBERLIST_LABEL = `${PROJECT_DOMAIN}/loki-memberlist`;
/** A hash of the configuration a pod template mounts, so a new configuration rolls the pods. */
export const CONFIG_HASH_ANNOTATION = `${PROJECT_DOMAIN}/config-hash`;

/** The application the controller's pods and objects belong to (`app.kubernetes.io/name`), whatever their name. */
export const CONTROLLER_APP_NAME = 'cdk8s-zones-controller';
