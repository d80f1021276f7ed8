import { OperatorModel } from '../model';

/**
 * MongoDB Community operator (github.com/mongodb/mongodb-kubernetes-operator, tag v0.13.0; Apache-2.0):
 * - pods: a StatefulSet `<name>` of `spec.members` data members (`spec.statefulSet.spec.replicas` wins) and one
 *   `<name>-arb` of `spec.arbiters`, from the same template, all labelled `app: <name>-svc`
 *   (controllers/replica_set_controller.go, controllers/construct/mongodbstatefulset.go);
 * - pod spec: no defaults; `spec.statefulSet.spec.template.spec` merged over it (nodeSelector merged, each part of
 *   affinity and the tolerations replaced, spreads merged by topologyKey: pkg/util/merge);
 * - quorum: every member and arbiter votes (pkg/automationconfig); a primary needs a majority of the votes and a data
 *   member left; with no arbiter, w:"majority" writes (the default write concern) need a majority of the data members;
 * - no PodDisruptionBudget.
 */
export const MONGODB_COMMUNITY: OperatorModel = {
  group: 'mongodbcommunity.mongodb.com',
  kind: 'MongoDBCommunity',
  plural: 'mongodbcommunity',
  versions: ['v1'],
  operator: 'MongoDB Community operator v0.13.0',
  source: 'github.com/mongodb/mongodb-kubernetes-operator v0.13.0: controllers/replica_set_controller.go, '
    + 'controllers/construct/mongodbstatefulset.go, pkg/util/merge, pkg/automationconfig/automation_config_builder.go',
  podSets: [
    {
      roles: { data: true },
      madeAs: 'StatefulSet',
      name: '{metadata.name}',
      replicas: { firstOf: [{ path: 'spec.statefulSet.spec.replicas' }, { path: 'spec.members' }] },
      labels: { app: '{metadata.name}-svc' },
      labelsFrom: ['spec.statefulSet.spec.template.metadata.labels'],
      pod: { override: 'spec.statefulSet.spec.template.spec' },
      volumes: { storageClass: 'spec.statefulSet.spec.volumeClaimTemplates[0].spec.storageClassName' },
    },
    {
      roles: { arbiter: true },
      madeAs: 'StatefulSet',
      name: '{metadata.name}-arb',
      when: { not: { path: 'spec.arbiters', is: [0], ifUnset: true } },
      replicas: { path: 'spec.arbiters', default: 0 },
      labels: { app: '{metadata.name}-svc' },
      labelsFrom: ['spec.statefulSet.spec.template.metadata.labels'],
      pod: { override: 'spec.statefulSet.spec.template.spec' },
      volumes: { storageClass: 'spec.statefulSet.spec.volumeClaimTemplates[0].spec.storageClassName' },
    },
  ],
  needs: [
    { rule: 'voters', roles: ['data', 'arbiter'], formsWith: 'majority', what: 'electing a primary (a majority of the votes, arbiters\' included)' },
    { rule: 'pods', roles: ['data'], count: 1, what: 'a data member left to be primary' },
    {
      rule: 'voters',
      roles: ['data'],
      formsWith: 'majority',
      what: 'w:"majority" writes, the default write concern (a majority of the data members)',
      when: { path: 'spec.arbiters', atMost: 0, ifUnset: true },
    },
  ],
  notModelled: 'members beyond 7 voters (votes 0); spec.memberConfig votes and priorities; a custom serviceName in the app label',
};
