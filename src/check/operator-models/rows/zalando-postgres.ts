import { OperatorModel } from '../model';

/**
 * Zalando postgres-operator (github.com/zalando/postgres-operator, tag v2.0.1; MIT), `postgresql`:
 * - pods: a StatefulSet named as the resource of `spec.numberOfInstances` pods labelled `application: spilo`,
 *   `cluster-name` and `team` (k8sres.go generateStatefulSet, util.go labelsSet; the operator's default label
 *   names); with `enableConnectionPooler`, a Deployment `<name>-pooler` of `connectionPooler.numberOfInstances`
 *   (default 2, connection_pooler.go);
 * - pod spec: `spec.nodeAffinity`, `spec.tolerations` and `spec.topologySpreadConstraints` as written (their
 *   selectors too: generateTopologySpreadConstraints adds none); the operator's pod anti-affinity is off by default;
 * - need: Patroni keeps its leader in the Kubernetes API, so a replica left is promoted; a pooler left.
 */
export const ZALANDO_POSTGRESQL: OperatorModel = {
  group: 'acid.zalan.do',
  kind: 'postgresql',
  plural: 'postgresqls',
  versions: ['v1'],
  operator: 'Zalando postgres-operator v2.0.1',
  source: 'github.com/zalando/postgres-operator v2.0.1: pkg/cluster/k8sres.go, util.go, connection_pooler.go; '
    + 'pkg/util/config/config.go',
  podSets: [
    {
      roles: { instance: true },
      madeAs: 'StatefulSet',
      name: '{metadata.name}',
      replicas: { path: 'spec.numberOfInstances' },
      labels: { 'application': 'spilo', 'cluster-name': '{metadata.name}', 'team': '{spec.teamId}' },
      pod: {
        fields: {
          nodeAffinity: 'spec.nodeAffinity',
          tolerations: 'spec.tolerations',
          topologySpreadConstraints: 'spec.topologySpreadConstraints',
          resources: 'spec.resources',
        },
      },
      volumes: { storageClass: 'spec.volume.storageClass' },
    },
    {
      roles: { pooler: true },
      madeAs: 'Deployment',
      name: '{metadata.name}-pooler',
      when: { path: 'spec.enableConnectionPooler', is: [true] },
      replicas: { path: 'spec.connectionPooler.numberOfInstances', default: 2 },
      labels: { 'application': 'db-connection-pooler', 'connection-pooler': '{metadata.name}-pooler' },
      pod: { fields: { nodeAffinity: 'spec.nodeAffinity', tolerations: 'spec.tolerations' } },
    },
  ],
  needs: [
    { rule: 'pods', roles: ['instance'], count: 1, what: 'a replica left for Patroni to promote' },
    { rule: 'pods', roles: ['pooler'], count: 1, what: 'a connection pooler left', when: { path: 'spec.enableConnectionPooler', is: [true] } },
  ],
  notModelled: 'operator configuration (enable_pod_antiaffinity, label names, min/max instances, node_readiness_label); '
    + 'the primary\'s budget (it follows the spilo-role label); the replica pooler',
};
