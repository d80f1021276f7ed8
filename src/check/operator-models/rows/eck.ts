import { WELL_KNOWN_ZONE_KEY } from '../../../contract/labels';
import { Condition, OperatorModel } from '../model';

/** The node.roles of a nodeSet's config, written flat (`node.roles`) or nested (`node: {roles}`). */
const hasRole = (roles: readonly string[]): Condition => ({
  any: [
    { path: 'item.config["node.roles"]', is: roles },
    { path: 'item.config.node.roles', is: roles },
    // no node.roles: every role but voting_only
    { all: [{ not: { set: 'item.config["node.roles"]' } }, { not: { set: 'item.config.node.roles' } }] },
  ],
});
const DATA_ROLES = ['data', 'data_content', 'data_hot', 'data_warm', 'data_cold', 'data_frozen'];
const zoneAware: Condition = { set: 'item.zoneAwareness' };
const ownKey: Condition = { set: 'item.zoneAwareness.topologyKey' };
const defaultKey: Condition = { all: [zoneAware, { not: ownKey }] };
const zones: Condition = { set: 'item.zoneAwareness.zones' };

/**
 * ECK, Elastic Cloud on Kubernetes (github.com/elastic/cloud-on-k8s, tag v3.5.0; Elastic License 2.0, read for facts
 * only, never built or run):
 * - pods: one StatefulSet `<es>-es-<nodeSet>` of `count` pods per `spec.nodeSets` entry, labelled with the cluster
 *   and StatefulSet names (nodespec/statefulset.go BuildStatefulSet, label/label.go NewPodLabels);
 * - pod spec: the nodeSet's `podTemplate`; a preferred anti-affinity on the hostname over the cluster's pods only when
 *   it sets no affinity (nodespec/defaults.go DefaultAffinity); `zoneAwareness` (v3.4.0 on) adds a DoNotSchedule zone
 *   spread over the StatefulSet's pods unless one on that key is written, and a required node affinity on the key
 *   (In its zones, else Exists); a nodeSet without it, in a cluster where another has it, gets the Exists only
 *   (zoneAwarenessSchedulingDirectives);
 * - quorum: a master needs a majority of the master-eligible nodes (no node.roles: every role); every shard needs a
 *   copy left, on data nodes, and copies are kept in different zones only with zone awareness (the `zone` awareness
 *   attribute, settings/merged_config.go); index.number_of_replicas is Elasticsearch's default, 1;
 * - one PodDisruptionBudget `<es>-es-default` over the cluster, one disruption allowed (pdb/reconcile_default.go),
 *   unless `spec.podDisruptionBudget` is given (used as written).
 */
export const ECK_ELASTICSEARCH: OperatorModel = {
  group: 'elasticsearch.k8s.elastic.co',
  kind: 'Elasticsearch',
  plural: 'elasticsearches',
  versions: ['v1'],
  operator: 'ECK v3.5.0',
  source: 'github.com/elastic/cloud-on-k8s v3.5.0 (read only): pkg/controller/elasticsearch/nodespec/statefulset.go, '
    + 'nodespec/podspec.go, nodespec/defaults.go, label/label.go, pdb/reconcile_default.go, settings/merged_config.go',
  podSets: [{
    roles: {
      master: { all: [{ not: { path: 'item.config["node.master"]', is: [false, 'false'] } }, hasRole(['master'])] },
      data: { all: [{ not: { path: 'item.config["node.data"]', is: [false, 'false'] } }, hasRole(DATA_ROLES)] },
    },
    madeAs: 'StatefulSet',
    name: '{metadata.name}-es-{item.name}',
    forEach: { list: 'spec.nodeSets' },
    replicas: { path: 'item.count' },
    labels: {
      'elasticsearch.k8s.elastic.co/cluster-name': '{metadata.name}',
      'common.k8s.elastic.co/type': 'elasticsearch',
      'elasticsearch.k8s.elastic.co/statefulset-name': '{metadata.name}-es-{item.name}',
    },
    labelsFrom: ['item.podTemplate.metadata.labels'],
    pod: {
      template: ['item.podTemplate.spec'],
      antiAffinity: { topologyKey: 'kubernetes.io/hostname', hard: false, selectorKeys: ['elasticsearch.k8s.elastic.co/cluster-name'] },
      spread: [
        { topologyKey: '{item.zoneAwareness.topologyKey}', hard: true, selectorKeys: ['elasticsearch.k8s.elastic.co/cluster-name', 'elasticsearch.k8s.elastic.co/statefulset-name'], when: ownKey },
        { topologyKey: WELL_KNOWN_ZONE_KEY, hard: true, selectorKeys: ['elasticsearch.k8s.elastic.co/cluster-name', 'elasticsearch.k8s.elastic.co/statefulset-name'], when: defaultKey },
      ],
      nodeRequirements: [
        { key: '{item.zoneAwareness.topologyKey}', operator: 'In', values: 'item.zoneAwareness.zones', when: ownKey },
        { key: WELL_KNOWN_ZONE_KEY, operator: 'In', values: 'item.zoneAwareness.zones', when: defaultKey },
        { key: '{item.zoneAwareness.topologyKey}', operator: 'Exists', when: { all: [ownKey, { not: zones }] } },
        { key: WELL_KNOWN_ZONE_KEY, operator: 'Exists', when: { all: [defaultKey, { not: zones }] } },
        { key: WELL_KNOWN_ZONE_KEY, operator: 'Exists', when: { all: [{ not: zoneAware }, { set: 'spec.nodeSets[*].zoneAwareness' }] } },
      ],
    },
    volumes: { storageClass: 'item.volumeClaimTemplates[0].spec.storageClassName' },
  }],
  needs: [
    { rule: 'voters', roles: ['master'], formsWith: 'majority', what: 'master election (a majority of the master-eligible nodes)' },
    {
      rule: 'copies',
      roles: ['data'],
      factor: 2,
      need: 1,
      spreadOverZones: { set: 'spec.nodeSets[*].zoneAwareness' },
      what: 'every shard keeps a copy (index.number_of_replicas 1 assumed, Elasticsearch\'s default: 2 copies)',
    },
  ],
  budgets: [
    {
      name: '{metadata.name}-es-default',
      selector: { 'elasticsearch.k8s.elastic.co/cluster-name': '{metadata.name}' },
      minAvailable: { minus: 1 },
      when: { not: { set: 'spec.podDisruptionBudget' } },
    },
    {
      name: '{metadata.name}-es-default',
      selector: { 'elasticsearch.k8s.elastic.co/cluster-name': '{metadata.name}' },
      minAvailable: { path: 'spec.podDisruptionBudget.spec.minAvailable' },
      when: { set: 'spec.podDisruptionBudget.spec.minAvailable' },
    },
  ],
  notModelled: 'indices with more replicas; a zone-aware topologyKey other than the zone key for nodeSets without zoneAwareness; '
    + 'the Enterprise per-role budgets; a user budget by maxUnavailable',
};
