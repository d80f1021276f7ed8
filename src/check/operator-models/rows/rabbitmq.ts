import { WELL_KNOWN_ZONE_KEY } from '../../../contract/labels';
import { OperatorModel } from '../model';

/**
 * RabbitMQ cluster-operator (github.com/rabbitmq/cluster-operator, tag v2.22.3; MPL-2.0):
 * - pods: one StatefulSet `<name>-server` of `spec.replicas` (default 1; `override.statefulSet.spec.replicas` wins)
 *   labelled `app.kubernetes.io/{name,component,part-of}` (internal/resource/statefulset.go,
 *   internal/metadata/label.go);
 * - pod spec: `spec.affinity`, `spec.tolerations`, `spec.resources`; a soft zone spread on the name label unless the
 *   `rabbitmq.com/disable-default-topology-spread-constraints` annotation is "true" (defaultTopologySpreadConstraints);
 *   then `spec.override.statefulSet.spec.template.spec` as a strategic merge patch (patchPodSpec);
 * - quorum: `cluster_partition_handling = pause_minority` (internal/resource/configmap.go): a node that sees only a
 *   minority of the cluster pauses, so more than half of the nodes must remain (quorum queues and Khepri, Raft, too);
 * - no PodDisruptionBudget.
 */
export const RABBITMQ_CLUSTER: OperatorModel = {
  group: 'rabbitmq.com',
  kind: 'RabbitmqCluster',
  plural: 'rabbitmqclusters',
  versions: ['v1beta1'],
  operator: 'RabbitMQ cluster-operator v2.22.3',
  source: 'github.com/rabbitmq/cluster-operator v2.22.3: internal/resource/statefulset.go, internal/resource/configmap.go, '
    + 'internal/metadata/label.go',
  podSets: [{
    roles: { node: true },
    madeAs: 'StatefulSet',
    name: '{metadata.name}-server',
    replicas: { firstOf: [{ path: 'spec.override.statefulSet.spec.replicas' }, { path: 'spec.replicas', default: 1 }] },
    labels: {
      'app.kubernetes.io/name': '{metadata.name}',
      'app.kubernetes.io/component': 'rabbitmq',
      'app.kubernetes.io/part-of': 'rabbitmq',
    },
    labelsFrom: ['spec.override.statefulSet.spec.template.metadata.labels'],
    pod: {
      fields: { affinity: 'spec.affinity', tolerations: 'spec.tolerations', resources: 'spec.resources' },
      spread: [{
        topologyKey: WELL_KNOWN_ZONE_KEY,
        hard: false,
        selectorKeys: ['app.kubernetes.io/name'],
        when: { not: { path: 'metadata.annotations["rabbitmq.com/disable-default-topology-spread-constraints"]', is: ['true'] } },
      }],
      override: 'spec.override.statefulSet.spec.template.spec',
    },
    volumes: { storageClass: 'spec.persistence.storageClassName' },
  }],
  needs: [{
    rule: 'voters',
    roles: ['node'],
    formsWith: 'majority',
    what: 'pause_minority: a node that sees only a minority of the cluster pauses (quorum queues need a majority too)',
  }],
  notModelled: 'a rabbitmq.conf that changes cluster_partition_handling; quorum queues with fewer members than nodes',
};
