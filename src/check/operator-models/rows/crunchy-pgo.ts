import { WELL_KNOWN_ZONE_KEY } from '../../../contract/labels';
import { DefaultTerm, OperatorModel } from '../model';

const CLUSTER = 'postgres-operator.crunchydata.com/cluster';
/** The operator's soft spreads over the host and the zone, unless `spec.disableDefaultPodScheduling`. */
const softSpreads = (selectorKeys: readonly string[]): DefaultTerm[] => ['kubernetes.io/hostname', WELL_KNOWN_ZONE_KEY]
  .map((topologyKey) => ({ topologyKey, hard: false, selectorKeys, when: { not: { path: 'spec.disableDefaultPodScheduling', is: [true] } } }));

/**
 * Crunchy Data PGO (github.com/CrunchyData/postgres-operator, tag v6.0.3; Apache-2.0), PostgresCluster:
 * - pods: per `spec.instances` entry (name default: its index in two digits), `replicas` instances (default 1), each
 *   its own StatefulSet of one pod `<cluster>-<set>-<random>` (naming.GenerateInstance; instance.go
 *   generateInstanceStatefulSetIntent), labelled cluster, instance-set and data=postgres; with `spec.proxy.pgBouncer`,
 *   a Deployment `<cluster>-pgbouncer` (pgbouncer.go);
 * - pod spec: the set's affinity, tolerations and spreads as written, and soft spreads on the host and the zone
 *   (topology.go defaultTopologySpreadConstraints) unless `disableDefaultPodScheduling`;
 * - need: Patroni keeps its leader lock in the Kubernetes API, so any instance left is promoted; a pgBouncer left.
 */
export const CRUNCHY_POSTGRES_CLUSTER: OperatorModel = {
  group: 'postgres-operator.crunchydata.com',
  kind: 'PostgresCluster',
  plural: 'postgresclusters',
  versions: ['v1beta1', 'v1'],
  operator: 'Crunchy PGO v6.0.3',
  source: 'github.com/CrunchyData/postgres-operator v6.0.3: internal/controller/postgrescluster/instance.go, '
    + 'topology.go, pgbouncer.go; internal/naming/names.go, labels.go',
  podSets: [
    {
      roles: { instance: true },
      madeAs: 'StatefulSets of one instance',
      name: '{metadata.name}-{item.name,index|two-digits}',
      forEach: { list: 'spec.instances' },
      replicas: { path: 'item.replicas', default: 1 },
      labels: { [CLUSTER]: '{metadata.name}', 'postgres-operator.crunchydata.com/instance-set': '{item.name,index|two-digits}', 'postgres-operator.crunchydata.com/data': 'postgres' },
      labelsFrom: ['spec.metadata.labels', 'item.metadata.labels'],
      pod: {
        fields: { affinity: 'item.affinity', tolerations: 'item.tolerations', topologySpreadConstraints: 'item.topologySpreadConstraints', resources: 'item.resources' },
        spread: softSpreads([CLUSTER, 'postgres-operator.crunchydata.com/data']),
      },
      volumes: { storageClass: 'item.dataVolumeClaimSpec.storageClassName' },
    },
    {
      roles: { pgbouncer: true },
      madeAs: 'Deployment',
      name: '{metadata.name}-pgbouncer',
      when: { set: 'spec.proxy.pgBouncer' },
      replicas: { path: 'spec.proxy.pgBouncer.replicas', default: 1 },
      labels: { [CLUSTER]: '{metadata.name}', 'postgres-operator.crunchydata.com/role': 'pgbouncer' },
      labelsFrom: ['spec.metadata.labels', 'spec.proxy.pgBouncer.metadata.labels'],
      pod: {
        fields: {
          affinity: 'spec.proxy.pgBouncer.affinity',
          tolerations: 'spec.proxy.pgBouncer.tolerations',
          topologySpreadConstraints: 'spec.proxy.pgBouncer.topologySpreadConstraints',
        },
        spread: softSpreads([CLUSTER, 'postgres-operator.crunchydata.com/role']),
      },
    },
  ],
  needs: [
    { rule: 'pods', roles: ['instance'], count: 1, what: 'an instance left for Patroni to promote' },
    { rule: 'pods', roles: ['pgbouncer'], count: 1, what: 'a pgBouncer left', when: { set: 'spec.proxy.pgBouncer' } },
  ],
  notModelled: 'the pgBackRest repo host (not needed to serve); instance set budgets; synchronous_mode_strict',
};
