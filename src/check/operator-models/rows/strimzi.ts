import { WELL_KNOWN_ZONE_KEY } from '../../../contract/labels';
import { OperatorModel } from '../model';

/** The rack types that read the zone from the node's label (the default type, when unset). */
const rackByNodeLabel = { path: 'spec.kafka.rack.type', is: ['topology-label'], ifUnset: true } as const;

/**
 * Strimzi (github.com/strimzi/strimzi-kafka-operator, tag 1.2.0; Apache-2.0), KRaft with node pools:
 * - pods: one StrimziPodSet `<kafka>-<pool>` per KafkaNodePool labelled `strimzi.io/cluster: <kafka>`
 *   (KafkaAssemblyOperator, KafkaPool.componentName), `replicas` pods each, labelled by KafkaPool and Labels.java;
 * - pod spec: the pool's `template.pod`, which replaces the Kafka's `spec.kafka.template.pod` as a whole
 *   (KafkaPool.processTemplate); no default anti-affinity or spread; `spec.kafka.rack` of type topology-label adds a
 *   required node affinity `<topologyKey> Exists` to broker pods only (ModelUtils.affinityWithRackLabelSelector,
 *   KafkaCluster.generatePodSets);
 * - quorum: `controller.quorum.voters` lists every controller-role node (KafkaBrokerConfigurationBuilder); each
 *   partition keeps `min.insync.replicas` (forced to 1 when unset, KafkaConfiguration.DEFAULTS) of
 *   `default.replication.factor` (Kafka's default 1) replicas, placed on distinct racks only with a rack;
 * - one PodDisruptionBudget `<kafka>-kafka` over every pool, minAvailable = pods less
 *   `template.podDisruptionBudget.maxUnavailable` (default 1; PodDisruptionBudgetUtils).
 */
export const STRIMZI_KAFKA: OperatorModel = {
  group: 'kafka.strimzi.io',
  kind: 'Kafka',
  plural: 'kafkas',
  versions: ['v1', 'v1beta2'],
  operator: 'Strimzi 1.2.0',
  source: 'github.com/strimzi/strimzi-kafka-operator 1.2.0: cluster-operator/.../model/KafkaCluster.java, KafkaPool.java, '
    + 'ModelUtils.java, PodDisruptionBudgetUtils.java; KafkaBrokerConfigurationBuilder.java',
  refuses: [{
    when: { any: [{ set: 'spec.zookeeper' }, { set: 'spec.kafka.replicas' }] },
    why: 'runs ZooKeeper-era Kafka (spec.zookeeper or spec.kafka.replicas), which Strimzi 1.0 removed',
  }],
  podSets: [{
    roles: {
      controller: { path: 'item.spec.roles', is: ['controller'] },
      broker: { path: 'item.spec.roles', is: ['broker'] },
    },
    madeAs: 'StrimziPodSet',
    name: '{metadata.name}-{item.metadata.name}',
    forEach: { resources: { group: 'kafka.strimzi.io', kind: 'KafkaNodePool', plural: 'kafkanodepools', labels: { 'strimzi.io/cluster': '{metadata.name}' } } },
    replicas: { path: 'item.spec.replicas' },
    labels: {
      'strimzi.io/cluster': '{metadata.name}',
      'strimzi.io/name': '{metadata.name}-kafka',
      'strimzi.io/kind': 'Kafka',
      'strimzi.io/component-type': 'kafka',
      'strimzi.io/pool-name': '{item.metadata.name}',
      'app.kubernetes.io/name': 'kafka',
      'app.kubernetes.io/instance': '{metadata.name}',
      'app.kubernetes.io/part-of': 'strimzi-{metadata.name}',
      'app.kubernetes.io/managed-by': 'strimzi-cluster-operator',
    },
    labelsFrom: ['spec.kafka.template.pod.metadata.labels', 'item.spec.template.pod.metadata.labels'],
    pod: {
      template: ['item.spec.template.pod', 'spec.kafka.template.pod'],
      fields: { resources: 'item.spec.resources' },
      nodeRequirements: [{
        key: '{spec.kafka.rack.topologyKey}',
        operator: 'Exists',
        when: { all: [{ set: 'spec.kafka.rack.topologyKey' }, rackByNodeLabel, { path: 'item.spec.roles', is: ['broker'] }] },
      }],
    },
    volumes: { when: { path: 'item.spec.storage.type', is: ['persistent-claim', 'jbod'] }, storageClass: 'item.spec.storage.class' },
  }],
  needs: [
    { rule: 'voters', roles: ['controller'], formsWith: 'majority', what: 'the KRaft controller quorum (every controller-role node votes)' },
    {
      rule: 'copies',
      roles: ['broker'],
      factor: { path: 'spec.kafka.config["default.replication.factor"]', default: 1 },
      need: { path: 'spec.kafka.config["min.insync.replicas"]', default: 1 },
      spreadOverZones: { all: [{ path: 'spec.kafka.rack.topologyKey', is: [WELL_KNOWN_ZONE_KEY] }, rackByNodeLabel] },
      what: 'every partition keeps min.insync.replicas in-sync replicas for acks=all writes',
    },
  ],
  budgets: [{
    name: '{metadata.name}-kafka',
    selector: { 'strimzi.io/cluster': '{metadata.name}', 'strimzi.io/name': '{metadata.name}-kafka', 'strimzi.io/kind': 'Kafka' },
    minAvailable: { minus: { path: 'spec.kafka.template.podDisruptionBudget.maxUnavailable', default: 1 } },
  }],
  notModelled: 'a pool\'s template.pod labels are merged over the Kafka\'s (Strimzi replaces them); the broker-role and '
    + 'controller-role labels; topics whose replication factor differs from default.replication.factor',
};
