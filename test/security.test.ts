/**
 * Every example, in its standard and hostile variant, passes the security lint: least-privilege RBAC
 * (no wildcard, no cluster-wide Secrets, webhook configurations written by name only), a memory limit on
 * every container, no Secret on a command line or in a ConfigMap, headless governing Services, and a
 * NetworkPolicy over every pod the library makes.
 */
import { EXAMPLE_NAMES, synthesizeExample } from './example-apps';
import { ExampleVariant, HOSTILE_VARIANT, STANDARD_VARIANT } from './example-variants';
import { securityProblems } from './security-lint';

const managed = { 'app.kubernetes.io/managed-by': 'cdk8s-zones' };

test('the lint finds what a review would refuse', () => {
  const template = (labels: object, container: object) => ({ metadata: { labels }, spec: { containers: [container] } });
  expect(securityProblems([
    {
      kind: 'ClusterRole',
      metadata: { name: 'wide' },
      rules: [
        { apiGroups: ['*'], resources: ['pods'], verbs: ['get'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['x'] },
        { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get', 'patch'] },
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'] },
      ],
    },
    {
      kind: 'Role',
      metadata: { name: 'ok', namespace: 'a' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['x'] }],
    },
    {
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'a', labels: managed },
      spec: {
        serviceName: 'db',
        template: template({ app: 'db' }, {
          name: 'db',
          args: ['--requirepass', '$(PASSWORD)'],
          env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
        }),
      },
    },
    { kind: 'Service', metadata: { name: 'db', namespace: 'a' }, spec: { clusterIP: '10.0.0.1' } },
    { kind: 'ConfigMap', metadata: { name: 'conf', namespace: 'a' }, data: { 'redis.conf': 'port 6379\nrequirepass hunter2\n' } },
    {
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'a', labels: managed },
      spec: {
        template: template({ app: 'web' }, { name: 'web', resources: { limits: { memory: '1Gi' } } }),
      },
    },
    { kind: 'NetworkPolicy', metadata: { name: 'web', namespace: 'b' }, spec: { podSelector: { matchLabels: { app: 'web' } } } },
  ])).toEqual([
    'ClusterRole wide: rule {"apiGroups":["*"],"resources":["pods"],"verbs":["get"]} has a wildcard',
    'ClusterRole wide: rule {"apiGroups":[""],"resources":["secrets"],"verbs":["get"],"resourceNames":["x"]} reaches Secrets in every namespace',
    'ClusterRole wide: rule {"apiGroups":["admissionregistration.k8s.io"],"resources":["validatingwebhookconfigurations"],"verbs":["get","patch"]} ' +
      'writes admission webhook configurations without resourceNames',
    'ClusterRole wide: rule {"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],"verbs":["bind"]} can escalate (bind)',
    'StatefulSet a/db container db has no memory limit',
    'StatefulSet a/db container db puts the Secret in $(PASSWORD) on its command line',
    'ConfigMap a/conf: redis.conf holds a Redis password',
    'StatefulSet a/db: its governing Service db is not headless',
    'StatefulSet a/db: no NetworkPolicy selects its pods',
    'Deployment a/web: no NetworkPolicy selects its pods',
  ]);
});

describe.each(EXAMPLE_NAMES)('example %s', (name) => {
  test.each([['standard', STANDARD_VARIANT], ['hostile', HOSTILE_VARIANT]])('%s variant passes the security lint', (_, variant) => {
    expect(securityProblems(synthesizeExample(name, variant as ExampleVariant))).toEqual([]);
  });
});
