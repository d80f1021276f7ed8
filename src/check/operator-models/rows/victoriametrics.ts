import { OperatorModel, PodSetModel } from '../model';
import { schedulingFieldsAt } from './scheduling-fields';

/** A VMCluster component: `<name>-prefixed` pods with the operator's selector labels and the component's fields. */
function component(name: 'vmstorage' | 'vmselect' | 'vminsert', madeAs: string, role: string): PodSetModel {
  const spec = `spec.${name}`;
  return {
    roles: { [role]: true },
    madeAs,
    name: `${name}-{metadata.name}`,
    when: { set: spec },
    replicas: { path: `${spec}.replicaCount`, default: 1 },
    labels: {
      'app.kubernetes.io/name': name,
      'app.kubernetes.io/instance': '{metadata.name}',
      'app.kubernetes.io/component': 'monitoring',
      'managed-by': 'vm-operator',
    },
    labelsFrom: [`${spec}.podMetadata.labels`],
    pod: {
      fields: schedulingFieldsAt(spec),
      spreadSelectorKeys: ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/component', 'managed-by'],
    },
    ...(name === 'vmstorage' ? {
      volumes: { when: { set: `${spec}.storage.volumeClaimTemplate` }, storageClass: `${spec}.storage.volumeClaimTemplate.spec.storageClassName` },
    } : {}),
  };
}

/**
 * VictoriaMetrics operator (github.com/VictoriaMetrics/operator, tag v0.74.1; Apache-2.0), VMCluster:
 * - pods: StatefulSets `vmstorage-<name>` and `vmselect-<name>` and a Deployment `vminsert-<name>` for the
 *   components the spec has, `replicaCount` pods each (Kubernetes' default 1), labelled with the operator's selector
 *   labels (internal/controller/operator/factory/vmcluster/vmcluster.go; vmextra_types.go ClusterSelectorLabels);
 * - pod spec: each component's affinity, tolerations, nodeSelector and spreads, a spread without a labelSelector
 *   given the component's; no defaults;
 * - need: vminsert writes `replicationFactor` copies of a series (VictoriaMetrics' default 1) to distinct vmstorage
 *   nodes, not zones; a query answers in full while every series keeps a copy; a vmselect and a vminsert left.
 */
export const VICTORIAMETRICS_CLUSTER: OperatorModel = {
  group: 'operator.victoriametrics.com',
  kind: 'VMCluster',
  plural: 'vmclusters',
  versions: ['v1beta1'],
  operator: 'VictoriaMetrics operator v0.74.1',
  source: 'github.com/VictoriaMetrics/operator v0.74.1: internal/controller/operator/factory/vmcluster/vmcluster.go, '
    + 'build/podtemplate.go, api/operator/v1beta1/vmcluster_types.go, vmextra_types.go',
  refuses: [{ when: { path: 'spec.useLegacyNaming', is: [true] }, why: 'uses legacy naming (spec.useLegacyNaming)' }],
  podSets: [component('vmstorage', 'StatefulSet', 'storage'), component('vmselect', 'StatefulSet', 'select'), component('vminsert', 'Deployment', 'insert')],
  needs: [
    {
      rule: 'copies',
      roles: ['storage'],
      factor: { path: 'spec.replicationFactor', default: 1 },
      need: 1,
      what: 'complete query answers: every series keeps a copy on a vmstorage node left',
      when: { set: 'spec.vmstorage' },
    },
    { rule: 'pods', roles: ['select'], count: 1, what: 'a vmselect left to answer queries', when: { set: 'spec.vmselect' } },
    { rule: 'pods', roles: ['insert'], count: 1, what: 'a vminsert left to take writes', when: { set: 'spec.vminsert' } },
  ],
  notModelled: 'the opt-in PodDisruptionBudgets; an autoscaler owning vmselect or vminsert; the requests load balancer',
};
