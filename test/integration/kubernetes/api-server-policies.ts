/**
 * What the test API server records and refuses beyond a real cluster's defaults, because of how the tier plays the
 * kubelets (kwok): an audit of who deletes pods, and a guard on kwok's deletions.
 */
import * as fs from 'fs';
import * as path from 'path';
import { KubeObject } from './kube-client';

/**
 * The API server's arguments that audit who deleted or evicted which pod, and when, into `logsDir`'s
 * pod-deletions.log (user, user agent, pod; at most 100 MB): a pod that disappears under a test is explained there.
 */
export function podDeletionAuditArgs(runDir: string, logsDir: string): string[] {
  const policy = path.join(runDir, 'audit-policy.yaml');
  fs.writeFileSync(policy, JSON.stringify({
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived', 'ResponseStarted'],
    rules: [
      { level: 'Metadata', verbs: ['delete', 'deletecollection'], resources: [{ group: '', resources: ['pods'] }] },
      { level: 'Metadata', verbs: ['create'], resources: [{ group: '', resources: ['pods/eviction'] }] },
      { level: 'None' },
    ],
  }));
  return [
    `--audit-policy-file=${policy}`, `--audit-log-path=${path.join(logsDir, 'pod-deletions.log')}`,
    '--audit-log-format=json', '--audit-log-mode=batch', '--audit-log-maxsize=100', '--audit-log-maxbackup=1',
  ];
}

/** The name of the guard's policy and binding. */
export const KWOK_DELETE_GUARD = 'cdk8s-zones-test-kwok-deletes-terminating-pods-only';

/**
 * kwok 0.7 finishes a terminating pod by deleting it by name (no uid precondition), from a queue that lags its watch
 * under load: a late delete hits the pod a StatefulSet has since made under the same name, and the StatefulSet's next
 * pod again, a storm that lasted minutes in a CI run (the audit showed kwok's deletes by the thousand, all but a few
 * answered 404). A kubelet only ever finishes a pod that is terminating; this policy holds kwok to that: its delete of
 * a pod that is not terminating is refused, and the pod stays.
 */
export function kwokDeleteGuard(): KubeObject[] {
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: KWOK_DELETE_GUARD },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] }],
        },
        matchConditions: [{ name: 'kwok', expression: 'request.userInfo.username == "kwok"' }],
        validations: [{
          expression: 'has(oldObject.metadata.deletionTimestamp)',
          message: 'kwok deletes only terminating pods (a late delete by name would hit a pod made since under that name)',
        }],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: KWOK_DELETE_GUARD },
      spec: { policyName: KWOK_DELETE_GUARD, validationActions: ['Deny'] },
    },
  ];
}
