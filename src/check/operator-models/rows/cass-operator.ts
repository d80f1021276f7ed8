import { OperatorModel } from '../model';

/**
 * K8ssandra cass-operator (github.com/k8ssandra/cass-operator, tag v1.32.0; Apache-2.0):
 * - pods: one StatefulSet `<clusterName>-<dc>-<rack>-sts` (names cleaned as cass-operator cleans them) per
 *   `spec.racks` entry (one rack `default` when none), `spec.size` split among them, the first racks taking one more
 *   (SplitRacks; pkg/reconciliation/construct_statefulset.go); none while `spec.stopped`;
 * - pod spec: `spec.podTemplateSpec`; `spec.nodeSelector` replaces its node selector and `spec.tolerations` its
 *   tolerations; `spec.nodeAffinityLabels`, the rack's `nodeAffinityLabels` and its deprecated `zone` (as
 *   failure-domain.beta.kubernetes.io/zone) make a required node term of their own (rackNodeAffinitylabels,
 *   calculateNodeAffinity), the rack's `affinity` terms OR-ed or appended; a required anti-affinity on the hostname
 *   against every cass-operator pod unless `allowMultipleNodesPerWorker` (calculatePodAntiAffinity);
 * - quorum: a keyspace's replication factor is not in the resource (3 is assumed); NetworkTopologyStrategy puts a
 *   token range's replicas on distinct racks, and LOCAL_QUORUM needs 2 of 3;
 * - one PodDisruptionBudget `<dc>-pdb`, minAvailable size - 1, unless the disable-pdb-creation annotation is set
 *   (constructor.go newPodDisruptionBudgetForDatacenter).
 */
export const CASS_OPERATOR_DATACENTER: OperatorModel = {
  group: 'cassandra.datastax.com',
  kind: 'CassandraDatacenter',
  plural: 'cassandradatacenters',
  versions: ['v1beta1'],
  operator: 'cass-operator v1.32.0',
  source: 'github.com/k8ssandra/cass-operator v1.32.0: pkg/reconciliation/construct_statefulset.go, '
    + 'construct_podtemplatespec.go, constructor.go; apis/cassandra/v1beta1/cassandradatacenter_types.go',
  podSets: [{
    roles: { node: true },
    madeAs: 'StatefulSet',
    name: '{spec.clusterName|dns-label}-{metadata.name}-{item.name|subdomain}-sts',
    forEach: { list: 'spec.racks', ifEmpty: [{ name: 'default' }] },
    replicas: { when: { path: 'spec.stopped', is: [true] }, then: 0, else: { split: 'spec.size' } },
    labels: {
      'cassandra.datastax.com/cluster': '{spec.clusterName|label}',
      'cassandra.datastax.com/datacenter': '{metadata.name|label}',
      'cassandra.datastax.com/rack': '{item.name}',
      'app.kubernetes.io/managed-by': 'cass-operator',
      'app.kubernetes.io/name': 'cassandra',
      'app.kubernetes.io/instance': 'cassandra-{spec.clusterName|label}',
    },
    labelsFrom: ['spec.podTemplateSpec.metadata.labels', 'spec.additionalLabels'],
    pod: {
      template: ['spec.podTemplateSpec.spec'],
      fields: { nodeSelector: 'spec.nodeSelector', tolerations: 'spec.tolerations', resources: 'spec.resources' },
      affinityAdded: ['item.affinity'],
      nodeLabels: ['spec.nodeAffinityLabels', 'item.nodeAffinityLabels', { key: 'failure-domain.beta.kubernetes.io/zone', value: 'item.zone' }],
      antiAffinity: {
        topologyKey: 'kubernetes.io/hostname',
        hard: true,
        always: true,
        anyValue: true,
        selectorKeys: ['cassandra.datastax.com/cluster', 'cassandra.datastax.com/datacenter', 'cassandra.datastax.com/rack'],
        when: { not: { path: 'spec.allowMultipleNodesPerWorker', is: [true] } },
      },
    },
    volumes: { storageClass: 'spec.storageConfig.cassandraDataVolumeClaimSpec.storageClassName' },
  }],
  needs: [{
    rule: 'copies',
    roles: ['node'],
    factor: 3,
    need: 2,
    spreadOverMembers: true,
    what: 'LOCAL_QUORUM of each token range, one replica per rack (replication factor 3 assumed: keyspaces set it, not the resource)',
  }],
  budgets: [{
    name: '{metadata.name}-pdb',
    selector: { 'cassandra.datastax.com/cluster': '{spec.clusterName|label}', 'cassandra.datastax.com/datacenter': '{metadata.name|label}' },
    minAvailable: { minus: 1 },
    when: { not: { set: 'metadata.annotations["cassandra.datastax.com/disable-pdb-creation"]' } },
  }],
  notModelled: 'spec.datacenterName; keyspaces\' replication factors',
};
