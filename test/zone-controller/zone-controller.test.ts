import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import {
  CertManagerIssuerKind,
  WebhookFailurePolicy,
  WebhookTls,
  WebhookTlsMode,
  ZoneAnnotation,
  ZoneController,
  ZoneTopology,
} from '../../src';

function synth(props: ConstructorParameters<typeof ZoneController>[2] = {}, chartNamespace?: string) {
  const chart = new Chart(Testing.app(), 'c', { namespace: chartNamespace, disableResourceNameHashes: true });
  const controller = new ZoneController(chart, 'zones', props);
  const objects = Testing.synth(chart);
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const one = (kind: string) => {
    const found = of(kind);
    expect(found).toHaveLength(1);
    return found[0];
  };
  return { controller, objects, of, one };
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
      'NetworkPolicy/cdk8s-zones-system/cdk8s-zones-controller',
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
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(deployment.spec.template.spec.securityContext)
      .toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    const spreads = deployment.spec.template.spec.topologySpreadConstraints;
    expect(spreads.map((c: any) => [c.topologyKey, c.whenUnsatisfiable])).toEqual([
      ['topology.kubernetes.io/zone', 'DoNotSchedule'], ['kubernetes.io/hostname', 'ScheduleAnyway'],
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
    // It creates its Lease, then reads and renews that one only.
    expect(one('Role').rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: ['cdk8s-zones-controller'] },
    ]);
    expect(one('ClusterRoleBinding').subjects).toEqual([{ kind: 'ServiceAccount', name: 'cdk8s-zones-controller', namespace: 'cdk8s-zones-system' }]);
    expect(one('ClusterRole').metadata.namespace).toBeUndefined();
  });

  test('namespace, name, image, replicas, topology keys; no Namespace object when not created; no PDB for 1 replica', () => {
    const topology = new ZoneTopology({ zones: ['a', 'b'], topologyKey: 'example.com/zone', hostnameKey: 'example.com/host' });
    const { objects, one, controller } = synth({
      namespace: 'ops',
      createNamespace: false,
      name: 'zc',
      image: 'registry.local/zc:1',
      replicas: 1,
      topology,
    });
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

  test('zone-aware rollouts: the reconciler, its CRD; it watches everywhere and writes only in the namespaces it serves', () => {
    const { controller, of, one } = synth({ zoneAwareUpdate: true, workloadNamespaces: ['shop', 'blog'] });
    expect(controller.reconcilers).toEqual(['zone-annotator', 'zone-aware-update']);
    expect(of('CustomResourceDefinition').map((c) => c.metadata.name)).toEqual(['zoneawareupdates.cdk8s-zones.dev']);
    expect(of('ValidatingWebhookConfiguration')).toEqual([]);
    expect(one('Deployment').spec.template.spec.containers[0].args.slice(0, 3)).toEqual(['run', '--reconcilers', 'zone-annotator,zone-aware-update']);
    const cluster = one('ClusterRole').rules;
    expect(cluster).toContainEqual({ apiGroups: ['cdk8s-zones.dev'], resources: ['zoneawareupdates'], verbs: ['get', 'list', 'watch'] });
    expect(cluster).toContainEqual({ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] });
    const writes = (r: any) => r.verbs.some((v: string) => ['create', 'delete', 'update'].includes(v));
    expect(cluster.filter((r: any) => writes(r) && r.resources[0] !== 'events')).toEqual([]);
    const roles = of('Role').filter((r) => r.metadata.namespace !== 'cdk8s-zones-system');
    expect(roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual(['shop/cdk8s-zones-system-cdk8s-zones-controller', 'blog/cdk8s-zones-system-cdk8s-zones-controller']);
    for (const role of roles) {
      expect(role.rules).toEqual([
        { apiGroups: ['cdk8s-zones.dev'], resources: ['zoneawareupdates/status'], verbs: ['get', 'patch', 'update'] },
        { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['create', 'patch'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'patch'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      ]);
    }
    const bindings = of('RoleBinding').filter((r) => r.metadata.namespace === 'shop');
    expect(bindings.map((b) => [b.roleRef.name, b.subjects])).toEqual([
      ['cdk8s-zones-system-cdk8s-zones-controller', [{ kind: 'ServiceAccount', name: 'cdk8s-zones-controller', namespace: 'cdk8s-zones-system' }]],
    ]);
  });

  test('a feature that serves no namespace is refused: the controller could act nowhere', () => {
    expect(() => synth({ zoneAwareUpdate: true })).toThrow(
      "ZoneController 'c/zones': workloadNamespaces=undefined names no namespace, and no construct of this app needs zone-aware-update");
  });

  test('redisManager: the redis reconciler, nothing cluster-wide; in a namespace of unknown clusters, its ConfigMaps and Secrets', () => {
    const { controller, of, one } = synth({ redisManager: true, workloadNamespaces: ['cache'] });
    expect(controller.reconcilers).toEqual(['zone-annotator', 'redis']);
    const args = one('Deployment').spec.template.spec.containers[0].args;
    expect(args.slice(0, 3)).toEqual(['run', '--reconcilers', 'zone-annotator,redis']);
    expect(args).toEqual(expect.arrayContaining(['--redis-namespaces', 'cache']));
    expect(of('CustomResourceDefinition')).toEqual([]);
    expect(of('ValidatingWebhookConfiguration')).toEqual([]);
    expect(one('ClusterRole').rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
    expect(of('Role').find((r) => r.metadata.namespace === 'cache')!.rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'update', 'patch', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }, // the cluster's health, on its layout ConfigMap
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      // the StatefulSets' revision and replicas (the manager owns them)
      { apiGroups: ['apps'], resources: ['statefulsets', 'statefulsets/scale'], verbs: ['get', 'patch'] },
    ]);
    // alone, it has no ClusterRole at all
    expect(synth({ zoneAnnotator: false, redisManager: true, workloadNamespaces: ['cache'] }).of('ClusterRole')).toEqual([]);
  });

  test('zone disruption budgets: the eviction webhook (validating, Fail) on the served namespaces only, with self-managed TLS', () => {
    const { controller, of, one } = synth({
      zoneAnnotator: false,
      zoneDisruptionBudget: true,
      webhookTls: WebhookTls.selfManaged(),
      workloadNamespaces: ['shop', 'blog'],
    });
    expect(controller.reconcilers).toEqual(['zone-disruption-budget']);
    expect(of('CustomResourceDefinition').map((c) => c.metadata.name)).toEqual(['zonedisruptionbudgets.cdk8s-zones.dev']);
    const config = one('ValidatingWebhookConfiguration');
    expect(of('MutatingWebhookConfiguration')).toEqual([]);
    expect(config.webhooks).toHaveLength(1);
    const webhook = config.webhooks[0];
    expect(webhook.name).toBe('pods-eviction.cdk8s-zones.dev');
    expect(webhook.rules).toEqual([{
      apiGroups: [''],
      apiVersions: ['v1'],
      operations: ['CREATE'],
      resources: ['pods/eviction'],
      scope: 'Namespaced',
    }]);
    expect(webhook.failurePolicy).toBe('Fail');
    expect(webhook.sideEffects).toBe('NoneOnDryRun');
    expect(webhook.timeoutSeconds).toBe(10);
    expect(webhook.clientConfig.service).toEqual({ name: 'cdk8s-zones-controller', namespace: 'cdk8s-zones-system', path: '/validate/pods-eviction', port: 443 });
    expect(webhook.namespaceSelector).toEqual({ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['blog', 'shop'] }] });
    expect(webhook.objectSelector).toBeUndefined();
    const container = one('Deployment').spec.template.spec.containers[0];
    expect(container.args).toEqual(expect.arrayContaining(['--tls-mode', 'self-managed', '--webhook-configurations', config.metadata.name]));
    expect(container.ports).toContainEqual({ name: 'webhook', containerPort: 9443 });
    expect(one('Service').spec.ports).toContainEqual({ name: 'webhook', port: 443, targetPort: 'webhook' });
    // its own webhook configuration and TLS Secret, by name
    expect(one('ClusterRole').rules).toContainEqual({
      apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get', 'patch'], resourceNames: [config.metadata.name],
    });
    expect(of('Role').find((r) => r.metadata.namespace === 'cdk8s-zones-system')!.rules).toEqual(expect.arrayContaining([
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'update'], resourceNames: ['cdk8s-zones-controller-webhook-tls'] },
    ]));
  });

  test('the webhook never guards kube-system or the controller\'s own namespace', () => {
    expect(() => synth({ zoneDisruptionBudget: true, webhookTls: WebhookTls.selfManaged(), workloadNamespaces: ['kube-system'] }))
      .toThrow("ZoneController 'c/zones': namespace=\"cdk8s-zones-system\" leaves zone disruption budgets in kube-system unguarded");
  });

  test('NetworkPolicy: the webhook port from anywhere, /metrics from the chosen clients, or none', () => {
    const policy = synth({ zoneDisruptionBudget: true, webhookTls: WebhookTls.selfManaged(), workloadNamespaces: ['shop'] })
      .one('NetworkPolicy');
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cdk8s-zones-controller', 'app.kubernetes.io/instance': 'cdk8s-zones-controller' } },
      policyTypes: ['Ingress'],
      ingress: [
        { ports: [{ protocol: 'TCP', port: 'metrics' }], from: [{ podSelector: { matchLabels: {} } }] },
        { ports: [{ protocol: 'TCP', port: 'webhook' }] },
      ],
    });
    const monitoring = { namespaceLabels: { 'kubernetes.io/metadata.name': 'monitoring' }, podLabels: { app: 'prometheus' } };
    expect(synth({ networkPolicy: { clients: [monitoring] } }).one('NetworkPolicy').spec.ingress).toEqual([{
      ports: [{ protocol: 'TCP', port: 'metrics' }],
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } }, podSelector: { matchLabels: { app: 'prometheus' } } }],
    }]);
    // nobody scrapes: the policy admits nothing on that port
    expect(synth({ networkPolicy: { clients: [] } }).one('NetworkPolicy').spec.ingress).toEqual([]);
    expect(synth({ networkPolicy: { enabled: false } }).of('NetworkPolicy')).toEqual([]);
    expect(() => synth({ networkPolicy: { enabled: false, clients: [] } })).toThrow('networkPolicy.clients=[] is set while networkPolicy.enabled is false');
  });

  test('zone disruption budgets with cert-manager: Certificate, Issuer, CA injection; failure policy configurable', () => {
    const { of, one } = synth({
      zoneDisruptionBudget: true,
      webhookTls: WebhookTls.certManager(),
      webhookFailurePolicy: WebhookFailurePolicy.IGNORE,
      workloadNamespaces: ['shop'],
    });
    const config = one('ValidatingWebhookConfiguration');
    expect(config.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': 'cdk8s-zones-system/cdk8s-zones-controller-webhook' });
    expect(config.webhooks[0].failurePolicy).toBe('Ignore');
    expect(of('Certificate')).toHaveLength(1);
    expect(of('Issuer')).toHaveLength(1);
  });

  test('installCrds: false leaves the CRDs out', () => {
    const { of } = synth({
      zoneAwareUpdate: true,
      zoneDisruptionBudget: true,
      webhookTls: WebhookTls.selfManaged(),
      installCrds: false,
      workloadNamespaces: ['shop'],
    });
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
      .toMatchObject({
        mode: WebhookTlsMode.CERT_MANAGER,
        issuerName: undefined,
        issuerKind: CertManagerIssuerKind.ISSUER,
      });
    expect(WebhookTls.certManager({ issuerName: 'corp-ca', issuerKind: CertManagerIssuerKind.CLUSTER_ISSUER }))
      .toMatchObject({ mode: WebhookTlsMode.CERT_MANAGER, issuerName: 'corp-ca', issuerKind: 'ClusterIssuer' });
  });

  test('bad options are refused', () => {
    expect(() => WebhookTls.certManager({ issuerName: 'Corp CA' })).toThrow('WebhookTls.certManager: issuerName="Corp CA" is not a DNS subdomain');
    expect(() => WebhookTls.certManager({ issuerKind: CertManagerIssuerKind.CLUSTER_ISSUER })).toThrow('issuerKind="ClusterIssuer" needs issuerName');
  });
});

describe('the default image', () => {
  test('is the controller image of this package version (src/version.ts is written from package.json before every compile)', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    expect(ZoneController.DEFAULT_IMAGE).toBe(`ghcr.io/cdk8s-zones/controller:${version}`);
  });
});

describe('the default image of a build no release published', () => {
  /**
   * The library as loaded with its package.json saying `version`; the warnings of an app with two controllers apart.
   */
  function warningsAt(version: string, image?: string): string[] {
    let warnings: string[] = [];
    jest.isolateModules(() => {
      jest.doMock('../../src/shared/package-version', () => ({ packageVersion: () => version }));
      // a fresh copy of the library, reading the mocked version (an import would be the one loaded already)
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const lib = require('../../src');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { warningsOf } = require('../../src/shared/warnings');
      const chart = new Chart(Testing.app(), 'c');
      new lib.ZoneController(chart, 'one', { image });
      new lib.ZoneController(chart, 'two', { namespace: 'zones-two', name: 'zones-two', installCrds: false, image });
      warnings = warningsOf(chart);
    });
    jest.dontMock('../../src/shared/package-version');
    return warnings;
  }

  test.each(['0.0.0', '1.3.0-rc.1'])('%s: one warning for the app, naming the image and how to build and name one', (version) => {
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(warningsAt(version)).toEqual([
        `c/one: image: the default ghcr.io/cdk8s-zones/controller:${version} names version ${version} of cdk8s-zones, which no release published ` +
        '(a build from source), so no registry serves it: build the image with Docker, buildah or podman ' +
        '(https://github.com/cdk8s-zones/cdk8s-zones/blob/main/docs/controller.md#the-image), push it where your cluster pulls from, ' +
        'and name it with the image prop',
      ]);
      expect(warningsAt(version, 'registry.example.com/zones:dev')).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  test('a released version: no warning', () => {
    expect(warningsAt('1.2.3')).toEqual([]);
  });
});
