import { OperatorModel, PodSetModel } from '../model';
import { schedulingFieldsAt } from './scheduling-fields';

/** The labels Spotahome's operator gives a component's pods (handler.go getLabels, service/client.go). */
const labels = (component: string) => ({
  'app.kubernetes.io/managed-by': 'redis-operator',
  'redisfailovers.databases.spotahome.com/name': '{metadata.name}',
  'app.kubernetes.io/name': '{metadata.name}',
  'app.kubernetes.io/component': component,
  'app.kubernetes.io/part-of': 'redis-failover',
});

/** A component's pod spec: its fields, and a preferred anti-affinity on the hostname when it sets no affinity. */
const pod = (spec: string): PodSetModel['pod'] => ({
  fields: schedulingFieldsAt(spec),
  antiAffinity: { topologyKey: 'kubernetes.io/hostname', hard: false },
});

/**
 * Spotahome redis-operator (github.com/spotahome/redis-operator, tag v1.2.4; Apache-2.0):
 * - pods: a StatefulSet `rfr-<name>` of `spec.redis.replicas` (default 3) and a Deployment `rfs-<name>` of
 *   `spec.sentinel.replicas` sentinels (default 3) (operator/redisfailover/service/generator.go, names.go,
 *   api/redisfailover/v1/defaults.go), with the CR's own labels under the operator's;
 * - pod spec: each component's affinity, tolerations, nodeSelector and spreads; a preferred anti-affinity on the
 *   hostname over all of its labels when it sets no affinity (getAffinity);
 * - quorum: a failover needs a majority of the sentinels to authorise it (the quorum, replicas/2+1, to agree the
 *   master is down: getQuorum) and a Redis replica left to promote;
 * - PodDisruptionBudgets `rfr-<name>` and `rfs-<name>`: minAvailable 2, or 1 with 2 Redis replicas or fewer
 *   (service/client.go ensurePodDisruptionBudget).
 */
export const SPOTAHOME_REDIS_FAILOVER: OperatorModel = {
  group: 'databases.spotahome.com',
  kind: 'RedisFailover',
  plural: 'redisfailovers',
  versions: ['v1'],
  operator: 'Spotahome redis-operator v1.2.4',
  source: 'github.com/spotahome/redis-operator v1.2.4: operator/redisfailover/service/generator.go, names.go, client.go; '
    + 'api/redisfailover/v1/defaults.go, validate.go',
  podSets: [
    {
      roles: { redis: true },
      madeAs: 'StatefulSet',
      name: 'rfr-{metadata.name}',
      // 0 or less is made 3 (validate.go)
      replicas: { when: { path: 'spec.redis.replicas', atMost: 0 }, then: 3, else: { path: 'spec.redis.replicas', default: 3 } },
      labels: { ...labels('redis'), 'redisfailovers-role': 'slave' },
      labelsFrom: ['metadata.labels'],
      pod: pod('spec.redis'),
      volumes: { when: { set: 'spec.redis.storage.persistentVolumeClaim' }, storageClass: 'spec.redis.storage.persistentVolumeClaim.spec.storageClassName' },
    },
    {
      roles: { sentinel: true },
      madeAs: 'Deployment',
      name: 'rfs-{metadata.name}',
      replicas: { when: { path: 'spec.sentinel.replicas', atMost: 0 }, then: 3, else: { path: 'spec.sentinel.replicas', default: 3 } },
      labels: labels('sentinel'),
      labelsFrom: ['metadata.labels'],
      pod: pod('spec.sentinel'),
    },
  ],
  needs: [
    { rule: 'voters', roles: ['sentinel'], formsWith: 'majority', what: 'a failover authorised by a majority of the sentinels' },
    { rule: 'pods', roles: ['redis'], count: 1, what: 'a Redis replica left to promote' },
  ],
  budgets: [{
    name: '{item.name}',
    perPodSet: true,
    selector: { 'app.kubernetes.io/name': '', 'app.kubernetes.io/component': '', 'app.kubernetes.io/part-of': '' },
    minAvailable: { when: { path: 'spec.redis.replicas', atMost: 2 }, then: 1, else: 2 },
  }],
  notModelled: 'spec.labelWhitelist; the master\'s role label (it moves)',
};
