import { OperatorModel, PodSetModel } from '../model';
import { schedulingFieldsAt } from './scheduling-fields';

const GROUP = 'redis.redis.opstreelabs.in';
const OPERATOR = 'OT-Container-Kit redis-operator v0.26.0';
const SOURCE = 'github.com/OT-CONTAINER-KIT/redis-operator v0.26.0: internal/k8sutils/redis-cluster.go, redis-replication.go, '
  + 'redis-sentinel.go, statefulset.go, poddisruption.go; api/*/v1beta2';

/** A component's scheduling fields, copied as written (statefulset.go generateStatefulSetsDef); no defaults. */
const pod = (spec: string): PodSetModel['pod'] => ({ fields: schedulingFieldsAt(spec, `${spec}.kubernetesConfig.resources`) });

const volumes = { when: { set: 'spec.storage.volumeClaimTemplate' }, storageClass: 'spec.storage.volumeClaimTemplate.spec.storageClassName' };

/**
 * OT-Container-Kit redis-operator (github.com/OT-CONTAINER-KIT/redis-operator, tag v0.26.0; Apache-2.0), RedisCluster:
 * StatefulSets `<name>-leader` and `<name>-follower` of `redisLeader.replicas`/`redisFollower.replicas` (else
 * `clusterSize`), labelled app, redis_setup_type, role and the CR's labels (common/labels.go GetRedisLabels), with
 * each one's scheduling fields; follower k replicates leader k. A failover needs the votes of a majority of the
 * masters, and nothing keeps a leader and its follower in different zones.
 */
export const OT_REDIS_CLUSTER: OperatorModel = {
  group: GROUP,
  kind: 'RedisCluster',
  plural: 'redisclusters',
  versions: ['v1beta2'],
  operator: OPERATOR,
  source: SOURCE,
  podSets: (['leader', 'follower'] as const).map((role) => ({
    roles: { [role]: true },
    madeAs: 'StatefulSet',
    name: `{metadata.name}-${role}`,
    replicas: { firstOf: [{ path: `spec.redis${role === 'leader' ? 'Leader' : 'Follower'}.replicas` }, { path: 'spec.clusterSize' }] },
    labels: { app: `{metadata.name}-${role}`, redis_setup_type: 'cluster', role, cluster: '{metadata.name}' },
    labelsFrom: ['metadata.labels'],
    pod: pod(`spec.redis${role === 'leader' ? 'Leader' : 'Follower'}`),
    volumes,
  })),
  needs: [
    { rule: 'voters', roles: ['leader'], formsWith: 'majority', what: 'a failover needs the votes of a majority of the masters' },
    { rule: 'copies', roles: ['leader', 'follower'], factor: 2, need: 1, what: 'every hash slot keeps its leader or its follower' },
  ],
  notModelled: 'more followers than leaders; the opt-in webhook\'s host anti-affinity between a leader and its follower',
};

/**
 * RedisReplication: a StatefulSet `<name>` of `clusterSize` (labels app, redis_setup_type replication, role
 * replication), and with `spec.sentinel` a StatefulSet `<name>-s` of `sentinel.size` sentinels whose QUORUM is a
 * majority (redisreplication_sentinel.go). A replica must be left to promote, and sentinels to authorise it.
 */
export const OT_REDIS_REPLICATION: OperatorModel = {
  group: GROUP,
  kind: 'RedisReplication',
  plural: 'redisreplications',
  versions: ['v1beta2'],
  operator: OPERATOR,
  source: SOURCE,
  podSets: [
    {
      roles: { replica: true },
      madeAs: 'StatefulSet',
      name: '{metadata.name}',
      replicas: { path: 'spec.clusterSize' },
      labels: { app: '{metadata.name}', redis_setup_type: 'replication', role: 'replication' },
      labelsFrom: ['metadata.labels'],
      pod: pod('spec'),
      volumes,
    },
    {
      roles: { sentinel: true },
      madeAs: 'StatefulSet',
      name: '{metadata.name}-s',
      when: { set: 'spec.sentinel' },
      replicas: { path: 'spec.sentinel.size' },
      labels: { app: '{metadata.name}-s', redis_setup_type: 'sentinel', role: 'sentinel' },
      labelsFrom: ['metadata.labels'],
      pod: pod('spec.sentinel'),
    },
  ],
  needs: [
    { rule: 'pods', roles: ['replica'], count: 1, what: 'a Redis replica left to promote' },
    { rule: 'voters', roles: ['sentinel'], formsWith: 'majority', what: 'a failover authorised by a majority of the sentinels', when: { set: 'spec.sentinel' } },
  ],
};

/**
 * RedisSentinel: a StatefulSet `<name>-sentinel` of `clusterSize` (default 3) sentinels watching a RedisReplication;
 * `redisSentinelConfig.quorum` (default "2") must agree the master is down, and a majority must authorise a failover.
 */
export const OT_REDIS_SENTINEL: OperatorModel = {
  group: GROUP,
  kind: 'RedisSentinel',
  plural: 'redissentinels',
  versions: ['v1beta2'],
  operator: OPERATOR,
  source: SOURCE,
  podSets: [{
    roles: { sentinel: true },
    madeAs: 'StatefulSet',
    name: '{metadata.name}-sentinel',
    replicas: { path: 'spec.clusterSize', default: 3 },
    labels: { app: '{metadata.name}-sentinel', redis_setup_type: 'sentinel', role: 'sentinel' },
    labelsFrom: ['metadata.labels'],
    pod: pod('spec'),
  }],
  needs: [
    { rule: 'voters', roles: ['sentinel'], formsWith: 'majority', what: 'a failover authorised by a majority of the sentinels' },
    { rule: 'pods', roles: ['sentinel'], count: { path: 'spec.redisSentinelConfig.quorum', default: 2 }, what: 'the sentinel quorum that agrees the master is down' },
  ],
};
