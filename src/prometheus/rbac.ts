import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { ResolvedPrometheus } from './options';
import { clusterScoped } from '../kubernetes/object-names';
import { standardLabels } from '../kubernetes/standard-labels';

/**
 * The ServiceAccount the Prometheus pods run as, and least-privilege read access for Kubernetes service
 * discovery in every namespace: pods, services and EndpointSlices; nodes only when the zone is read from
 * node labels (attach_metadata node: true).
 */
export function discoveryRbac(scope: Construct, p: ResolvedPrometheus, nodeMetadata: boolean): k8s.KubeServiceAccount {
  const labels = standardLabels('prometheus', p.name, 'rbac');
  const serviceAccount = new k8s.KubeServiceAccount(scope, 'service-account', {
    metadata: { name: p.name, namespace: p.metadataNamespace, labels },
  });
  // Cluster-scoped names carry the namespace, so two installations in different namespaces do not clash.
  const clusterName = `${p.namespace}-${p.name}`;
  const read = ['get', 'list', 'watch'];
  const rules: k8s.PolicyRule[] = [
    { apiGroups: [''], resources: nodeMetadata ? ['nodes', 'pods', 'services'] : ['pods', 'services'], verbs: read },
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
  ];
  const role = new k8s.KubeClusterRole(scope, 'cluster-role', { metadata: { name: clusterName, labels }, rules });
  const binding = new k8s.KubeClusterRoleBinding(scope, 'cluster-role-binding', {
    metadata: { name: clusterName, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.name },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace: p.namespace }],
  });
  clusterScoped(role);
  clusterScoped(binding);
  return serviceAccount;
}
