import { parseRun, RUN_HELP } from '../src/commands/run';
import { RECONCILERS } from '../src/reconcilers';

describe('run flags', () => {
  test('defaults, and POD_NAME / POD_NAMESPACE from the environment', () => {
    const o = parseRun([], { POD_NAME: 'ctl-0', POD_NAMESPACE: 'zones' });
    expect(o).toMatchObject({
      reconcilers: [RECONCILERS.find((r) => r.name === 'zone-annotator')],
      leaderElect: false,
      leaseNamespace: 'zones',
      leaseName: 'cdk8s-zones-controller',
      leaseDurationSeconds: 15,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      identity: 'ctl-0',
      topologyKeys: ['topology.kubernetes.io/zone'],
      metricsPort: 8080,
      webhookPort: 9443,
      tlsMode: 'files',
      webhookHost: '0.0.0.0',
      metricsHost: '0.0.0.0',
      requestTimeoutMs: 10_000,
      apiConcurrency: 32,
    });
    expect(parseRun([], {}, 'from-sa')).toMatchObject({ leaseNamespace: 'from-sa' });
  });

  test('every flag', () => {
    expect(parseRun([
      '--reconcilers', 'zone-annotator', '--leader-elect', '--lease-namespace', 'ns', '--lease-name', 'l', '--lease-duration', '4s',
      '--renew-deadline', '3s', '--retry-period', '500ms', '--identity', 'me', '--topology-keys', 'topology.kubernetes.io/region, topology.kubernetes.io/zone',
      '--metrics-port', '0', '--webhook-port', '9444', '--tls-mode', 'files', '--tls-cert-file', 'c', '--tls-key-file', 'k', '--kubeconfig', 'kc',
      '--bind-address', '127.0.0.1', '--metrics-bind-address', '::1', '--request-timeout', '2500ms', '--api-concurrency', '64',
    ], { POD_NAME: 'ignored' })).toMatchObject({
      apiConcurrency: 64,
      leaderElect: true,
      leaseNamespace: 'ns',
      leaseName: 'l',
      leaseDurationSeconds: 4,
      renewDeadlineMs: 3000,
      retryPeriodMs: 500,
      identity: 'me',
      topologyKeys: ['topology.kubernetes.io/region', 'topology.kubernetes.io/zone'],
      metricsPort: 0,
      webhookPort: 9444,
      tlsCertFile: 'c',
      tlsKeyFile: 'k',
      kubeconfig: 'kc',
      webhookHost: '127.0.0.1',
      metricsHost: '::1',
      requestTimeoutMs: 2_500,
    });
  });

  test('self-managed TLS: the Secret, the Service names (plus --tls-hosts) and the webhook configurations', () => {
    expect(parseRun(['--tls-mode', 'self-managed', '--lease-name', 'ctl', '--tls-hosts', '127.0.0.1', '--webhook-configurations', 'a,b'], { POD_NAMESPACE: 'zones' }))
      .toMatchObject({
        tlsMode: 'self-managed',
        tlsSecret: 'ctl-webhook-tls',
        webhookConfigurations: ['a', 'b'],
        tlsHosts: ['ctl.zones.svc', 'ctl.zones.svc.cluster.local', 'ctl.zones', 'ctl', '127.0.0.1'],
      });
    expect(parseRun(['--tls-mode', 'self-managed', '--tls-secret', 's', '--webhook-service', 'svc'], { POD_NAMESPACE: 'ns' }))
      .toMatchObject({ tlsSecret: 's', tlsHosts: ['svc.ns.svc', 'svc.ns.svc.cluster.local', 'svc.ns', 'svc'] });
    expect(() => parseRun(['--tls-mode', 'self-managed', '--tls-cert-file', 'c', '--tls-key-file', 'k'])).toThrow('are for --tls-mode files');
    expect(() => parseRun(['--tls-secret', 's'])).toThrow('--tls-secret is for --tls-mode self-managed');
  });

  test('bad flags name the flag, the value and the rule', () => {
    expect(() => parseRun(['--reconcilers', 'nope'])).toThrow('run: --reconcilers: unknown reconciler "nope"; known: zone-annotator');
    expect(() => parseRun(['--reconcilers', 'zone-annotator,zone-annotator'])).toThrow('names a reconciler twice');
    expect(() => parseRun(['--reconcilers', ' , '])).toThrow('--reconcilers names no reconciler');
    expect(() => parseRun(['--topology-keys', ''])).toThrow('--topology-keys names no label key');
    expect(() => parseRun(['--shift-karpenter-node-pools'])).toThrow('--shift-karpenter-node-pools needs the zone-shift reconciler');
    expect(() => parseRun(['--shift-karpenter-node-pools', '--reconcilers', 'zone-shift', '--topology-keys', 'a,b']))
      .toThrow('--shift-karpenter-node-pools needs one --topology-keys key (got a,b): a NodePool requirement names one node label');
    expect(parseRun(['--shift-karpenter-node-pools', '--reconcilers', 'zone-shift'])).toMatchObject({ shiftKarpenterNodePools: true });
    expect(() => parseRun(['--tls-mode', 'none'])).toThrow('--tls-mode="none" must be files or self-managed');
    expect(() => parseRun(['--tls-cert-file', 'c'])).toThrow('--tls-cert-file and --tls-key-file go together');
    expect(() => parseRun(['--metrics-port', '70000'])).toThrow('--metrics-port="70000" must be a whole number from 0 to 65535');
    expect(() => parseRun(['--lease-duration', '1500ms'])).toThrow('--lease-duration="1500ms" must be whole seconds');
    expect(() => parseRun(['--renew-deadline', '20s'])).toThrow('need --retry-period (2) < --renew-deadline (20) < --lease-duration (15)');
    expect(() => parseRun(['--bogus'])).toThrow('unknown flag "--bogus"');
    expect(() => parseRun(['--retry-period', '2'])).toThrow('--retry-period="2" must be a duration above zero: whole numbers with h, m, s or ms');
    expect(() => parseRun(['--lease-duration'])).toThrow('--lease-duration needs a value');
    expect(() => parseRun(['--metrics-bind-address', 'localhost'])).toThrow('--metrics-bind-address="localhost" must be an IP address');
    expect(() => parseRun(['--metrics-bind-address', '10.0.0.300'])).toThrow('--metrics-bind-address="10.0.0.300" must be an IP address');
    expect(() => parseRun(['--bind-address', ''])).toThrow('--bind-address="" must be an IP address');
    expect(() => parseRun(['--request-timeout', '0s'])).toThrow('--request-timeout="0s" must be a duration above zero');
    expect(() => parseRun(['--api-concurrency', '2.5'])).toThrow('--api-concurrency="2.5" must be a whole number >= 1');
  });

  test('the usage text names both bind addresses and what each binds', () => {
    const help = RUN_HELP.replace(/\n {34}/g, ' '); // each flag's entry on one line
    expect(help).toMatch(/--bind-address IP +the webhook listener's address \(default: 0\.0\.0\.0\)/);
    expect(help).toMatch(/--metrics-bind-address IP +the \/metrics \/healthz \/readyz listener's address; the kubelet probes through the pod IP \(default: 0\.0\.0\.0\)/);
    expect(RUN_HELP).toMatch(/--request-timeout DURATION/);
  });
});

describe('run --redis-namespaces', () => {
  test('default: every namespace (empty); else the listed namespaces, in order', () => {
    expect(parseRun([])).toMatchObject({ redisNamespaces: [] });
    expect(parseRun(['--redis-namespaces', 'cache, sessions,'])).toMatchObject({ redisNamespaces: ['cache', 'sessions'] });
    expect(RUN_HELP).toMatch(/--redis-namespaces LIST +namespaces the redis reconciler manages clusters in/);
  });

  test('a name that is not a namespace name is refused with the flag, the value and the rule', () => {
    expect(() => parseRun(['--redis-namespaces', 'cache,Bad_NS'])).toThrow('run: --redis-namespaces: "Bad_NS" is not a namespace name (a DNS label)');
  });
});
