import { Chart, Testing } from 'cdk8s';
import { CertManagerIssuerKind, WebhookFailurePolicy, WebhookTls, WebhookTlsMode, ZoneAnnotation, ZoneController, ZoneTopology } from '../../src';

function synth(props: ConstructorParameters<typeof ZoneController>[2] = {}, chartNamespace?: string) {
  const chart = new Chart(Testing.app(), 'c', { namespace: chartNamespace, disableResourceNameHashes: true });
  const controller = new ZoneController(chart, 'zones', props);
  const objects = Testing.synth(chart);
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  return { controller, objects, of, one: (kind: string) => { const found = of(kind); expect(found).toHaveLength(1); return found[0]; } };
}

describe('ZoneController', () => {
  test('installs the zone annotator with leader election: namespace, service account, deployment, service, PDB', () => {
    const { objects, one, controller } = synth();
    expect(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      'Namespace//cdk8s-zones-system',
      'ServiceAccount/cdk8s-zones-system/cdk8s-zones-controller',
      'ClusterRole//cdk8s-zones-system-cdk8s-zones-controller',
      'ClusterRoleBinding//cdk8s-zones-system-cdk8s-zones-controller',
      'Role/cdk8s-zones-system/cdk8s-zones-controller',
      'RoleBinding/cdk8s-zones-system/cdk8s-zones-controller',
      'Deployment/cdk8s-zones-system/cdk8s-zones-controller',
      'Service/cdk8s-zones-system/cdk8s-zones-controller',
      'PodDisruptionBudget/cdk8s-zones-system/cdk8s-zones-controller',
    ]);
    expect(controller.reconcilers).toEqual(['zone-annotator']);
    const deployment = one('Deployment');
    expect(deployment.spec.replicas).toBe(2);
    const container = deployment.spec.template.spec.containers[0];
    expect(container.image).toBe(ZoneController.DEFAULT_IMAGE);
    expect(container.args).toEqual(['run', '--reconcilers', 'zone-annotator', '--leader-elect', '--lease-name', 'cdk8s-zones-controller',
      '--topology-keys', 'topology.kubernetes.io/zone', '--metrics-port', '8080']);
    expect(container.env).toEqual([
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    ]);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container.resources.requests).toEqual({ cpu: '50m', memory: '64Mi' });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(deployment.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(deployment.spec.template.spec.topologySpreadConstraints.map((c: any) => [c.topologyKey, c.whenUnsatisfiable])).toEqual([
      ['topology.kubernetes.io/zone', 'ScheduleAnyway'], ['kubernetes.io/hostname', 'ScheduleAnyway'],
    ]);
    expect(deployment.spec.template.spec.serviceAccountName).toBe('cdk8s-zones-controller');
  });

  test('cluster-scoped objects carry no namespace, even in a chart with one', () => {
    const { of } = synth({}, 'apps');
    for (const kind of ['Namespace', 'ClusterRole', 'ClusterRoleBinding']) expect(of(kind)[0].metadata.namespace).toBeUndefined();
    expect(of('Deployment')[0].metadata.namespace).toBe('cdk8s-zones-system');
  });

  test('least privilege: exactly what the annotator and leader election need', () => {
    const { one } = synth();
    expect(one('ClusterRole').rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
    expect(one('Role').rules).toEqual([{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }]);
    expect(one('ClusterRoleBinding').subjects).toEqual([{ kind: 'ServiceAccount', name: 'cdk8s-zones-controller', namespace: 'cdk8s-zones-system' }]);
    expect(one('ClusterRole').metadata.namespace).toBeUndefined();
  });

  test('namespace, name, image, replicas, topology keys; no Namespace object when not created; no PDB for 1 replica', () => {
    const topology = new ZoneTopology({ zones: ['a', 'b'], topologyKey: 'example.com/zone', hostnameKey: 'example.com/host' });
    const { objects, one, controller } = synth({ namespace: 'ops', createNamespace: false, name: 'zc', image: 'registry.local/zc:1', replicas: 1, topology });
    expect(objects.filter((o) => o.kind === 'Namespace')).toEqual([]);
    expect(objects.filter((o) => o.kind === 'PodDisruptionBudget')).toEqual([]);
    const deployment = one('Deployment');
    expect(deployment.metadata).toMatchObject({ name: 'zc', namespace: 'ops' });
    expect(deployment.spec.replicas).toBe(1);
    const c = deployment.spec.template.spec.containers[0];
    expect(c.image).toBe('registry.local/zc:1');
    expect(c.args).toEqual(expect.arrayContaining(['--topology-keys', 'example.com/zone', '--lease-name', 'zc']));
    expect(deployment.spec.template.spec.topologySpreadConstraints.map((t: any) => t.topologyKey)).toEqual(['example.com/zone', 'example.com/host']);
    expect(one('ClusterRole').metadata.name).toBe('ops-zc');
    expect(controller.image).toBe('registry.local/zc:1');
    expect(controller.namespace).toBe('ops');
  });

  test('the wait-for-zone init command for zone-aware pods', () => {
    const { controller } = synth();
    expect(controller.waitForZoneCommand('/etc/podinfo/zone')).toEqual(['cdk8s-zones-controller', 'wait-for-zone', '--file', '/etc/podinfo/zone']);
    expect(controller.waitForZoneCommand('/etc/podinfo/zone', 60)).toEqual(['cdk8s-zones-controller', 'wait-for-zone', '--file', '/etc/podinfo/zone', '--timeout', '60']);
    expect(() => controller.waitForZoneCommand('zone')).toThrow("ZoneController 'c/zones'.waitForZoneCommand: file=\"zone\" must be an absolute path");
    expect(() => controller.waitForZoneCommand('/z', 0)).toThrow('timeoutSeconds=0 must be > 0');
    expect(ZoneAnnotation.VALUE_ANNOTATION).toBe('cdk8s-zones.dev/zone');
  });

  test('bad props name the construct, the prop, the value and the rule', () => {
    expect(() => synth({ replicas: 0 })).toThrow("ZoneController 'c/zones': replicas=0 must be an integer from 1 to 2147483647");
    expect(() => synth({ namespace: 'Bad_NS' })).toThrow("ZoneController 'c/zones': namespace=\"Bad_NS\" is not a DNS label");
    expect(() => synth({ image: ' ' })).toThrow('image=" " must be an image reference without spaces');
    expect(() => synth({ zoneAnnotator: false })).toThrow('zoneAnnotator=false leaves no reconciler enabled');
  });

  test('zone-aware rollouts: the reconciler, its CRD and its RBAC; no webhook', () => {
    const { controller, of, one } = synth({ zoneAwareUpdate: true });
    expect(controller.reconcilers).toEqual(['zone-annotator', 'zone-aware-update']);
    expect(of('CustomResourceDefinition').map((c) => c.metadata.name)).toEqual(['zoneawareupdates.cdk8s-zones.dev']);
    expect(of('ValidatingWebhookConfiguration')).toEqual([]);
    expect(one('Deployment').spec.template.spec.containers[0].args.slice(0, 3)).toEqual(['run', '--reconcilers', 'zone-annotator,zone-aware-update']);
    const rules = one('ClusterRole').rules;
    expect(rules).toContainEqual({ apiGroups: ['cdk8s-zones.dev'], resources: ['zoneawareupdates'], verbs: ['get', 'list', 'watch'] });
    expect(rules).toContainEqual({ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch', 'delete'] });
  });

  test('redisManager: the redis reconciler and exactly its RBAC; no CRD, no webhook', () => {
    const { controller, of, one } = synth({ redisManager: true });
    expect(controller.reconcilers).toEqual(['zone-annotator', 'redis']);
    expect(one('Deployment').spec.template.spec.containers[0].args.slice(0, 3)).toEqual(['run', '--reconcilers', 'zone-annotator,redis']);
    expect(of('CustomResourceDefinition')).toEqual([]);
    expect(of('ValidatingWebhookConfiguration')).toEqual([]);
    expect(one('ClusterRole').rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    ]);
    // alone, it only lists pods (their zone is their own label) and emits no Events
    expect(synth({ zoneAnnotator: false, redisManager: true }).one('ClusterRole').rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    ]);
  });

  test('zone disruption budgets: the eviction webhook (validating, Fail, never kube-system) with self-managed TLS', () => {
    const { controller, of, one } = synth({ zoneAnnotator: false, zoneDisruptionBudget: true, webhookTls: WebhookTls.selfManaged() });
    expect(controller.reconcilers).toEqual(['zone-disruption-budget']);
    expect(of('CustomResourceDefinition').map((c) => c.metadata.name)).toEqual(['zonedisruptionbudgets.cdk8s-zones.dev']);
    const config = one('ValidatingWebhookConfiguration');
    expect(of('MutatingWebhookConfiguration')).toEqual([]);
    expect(config.webhooks).toHaveLength(1);
    const webhook = config.webhooks[0];
    expect(webhook.name).toBe('pods-eviction.cdk8s-zones.dev');
    expect(webhook.rules).toEqual([{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods/eviction'], scope: 'Namespaced' }]);
    expect(webhook.failurePolicy).toBe('Fail');
    expect(webhook.clientConfig.service).toEqual({ name: 'cdk8s-zones-controller', namespace: 'cdk8s-zones-system', path: '/validate/pods-eviction', port: 443 });
    expect(webhook.namespaceSelector.matchExpressions).toEqual([
      { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'cdk8s-zones-system'] },
    ]);
    const container = one('Deployment').spec.template.spec.containers[0];
    expect(container.args).toEqual(expect.arrayContaining(['--tls-mode', 'self-managed', '--webhook-configurations', config.metadata.name]));
    expect(container.ports).toContainEqual({ name: 'webhook', containerPort: 9443 });
    expect(one('Service').spec.ports).toContainEqual({ name: 'webhook', port: 443, targetPort: 'webhook' });
    expect(one('ClusterRole').rules).toContainEqual({ apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get', 'patch'] });
  });

  test('zone disruption budgets with cert-manager: Certificate, Issuer, CA injection; failure policy configurable', () => {
    const { of, one } = synth({
      zoneDisruptionBudget: true, webhookTls: WebhookTls.certManager(), webhookFailurePolicy: WebhookFailurePolicy.IGNORE,
    });
    const config = one('ValidatingWebhookConfiguration');
    expect(config.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': 'cdk8s-zones-system/cdk8s-zones-controller-webhook' });
    expect(config.webhooks[0].failurePolicy).toBe('Ignore');
    expect(of('Certificate')).toHaveLength(1);
    expect(of('Issuer')).toHaveLength(1);
  });

  test('installCrds: false leaves the CRDs to ZoneRolloutCrds', () => {
    const { of } = synth({ zoneAwareUpdate: true, zoneDisruptionBudget: true, webhookTls: WebhookTls.selfManaged(), installCrds: false });
    expect(of('CustomResourceDefinition')).toEqual([]);
  });

  test('the eviction webhook needs TLS', () => {
    expect(() => synth({ zoneDisruptionBudget: true }))
      .toThrow("ZoneController 'c/zones': webhookTls=undefined is required: pods-eviction.cdk8s-zones.dev must be served over HTTPS");
  });

  test('webhook TLS is refused while no enabled feature serves a webhook', () => {
    expect(() => synth({ webhookTls: WebhookTls.selfManaged() }))
      .toThrow("ZoneController 'c/zones': webhookTls=\"self-managed\" is set but no enabled feature serves an admission webhook");
  });
});

describe('WebhookTls', () => {
  test('the two modes', () => {
    expect(WebhookTls.selfManaged()).toMatchObject({ mode: WebhookTlsMode.SELF_MANAGED, issuerName: undefined });
    expect(WebhookTls.certManager())
      .toMatchObject({ mode: WebhookTlsMode.CERT_MANAGER, issuerName: undefined, issuerKind: CertManagerIssuerKind.ISSUER });
    expect(WebhookTls.certManager({ issuerName: 'corp-ca', issuerKind: CertManagerIssuerKind.CLUSTER_ISSUER }))
      .toMatchObject({ mode: WebhookTlsMode.CERT_MANAGER, issuerName: 'corp-ca', issuerKind: 'ClusterIssuer' });
  });

  test('bad options are refused', () => {
    expect(() => WebhookTls.certManager({ issuerName: 'Corp CA' })).toThrow('WebhookTls.certManager: issuerName="Corp CA" is not a DNS subdomain');
    expect(() => WebhookTls.certManager({ issuerKind: CertManagerIssuerKind.CLUSTER_ISSUER })).toThrow('issuerKind="ClusterIssuer" needs issuerName');
  });
});
