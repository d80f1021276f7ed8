/**
 * Consensus software in plain StatefulSets (src/check/quorum-software): recognised from its image and its own
 * configuration (args, env, mounted ConfigMaps and Secrets), judged by a majority of its voters, and not available
 * at all when fewer than it forms with can be placed.
 */
import { ZoneInventory, ZoneReport } from '../../src';
import { WorkloadReport } from '../../src/check/model';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const check = (...objects: unknown[]) => ZoneReport.analyze(objects, ZoneInventory.equalNodes(ZONES, 3));
const only = (r: ZoneReport): WorkloadReport => r.workloads.find((w) => w.kind === 'StatefulSet')!;
const allZones = (survives: boolean) => Object.fromEntries(ZONES.map((z) => [z, survives]));
const errorRules = (w: WorkloadReport) => w.findings.filter((f) => f.severity === 'error').map((f) => f.rule).sort();

interface Server {
  readonly image: string;
  readonly replicas: number;
  readonly args?: string[];
  readonly env?: Record<string, string>;
  /** ConfigMaps (or Secrets, `secret: true`) the pod mounts. */
  readonly mounts?: { name: string; secret?: boolean }[];
  /** One pod per zone (required anti-affinity on the zone key) instead of a hard zone spread. */
  readonly onePerZone?: boolean;
}

/** A StatefulSet `q` in namespace `ns` running `image`, spread hard over the zones. */
function statefulSet(s: Server): object {
  const labels = { app: 'q' };
  const term = { topologyKey: ZONE_KEY, labelSelector: { matchLabels: labels } };
  const placement = s.onePerZone
    ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } }
    : { topologySpreadConstraints: [{ ...term, maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'q', namespace: 'ns' },
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{
            name: 'server',
            image: s.image,
            ...(s.args ? { args: s.args } : {}),
            env: Object.entries(s.env ?? {}).map(([name, value]) => ({ name, value })),
          }],
          volumes: (s.mounts ?? []).map((m) => (m.secret ? { name: m.name, secret: { secretName: m.name } }
            : { name: m.name, configMap: { name: m.name } })),
          ...placement,
        },
      },
    },
  };
}
const configMap = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data,
});

describe('etcd', () => {
  test('ETCD_INITIAL_CLUSTER of 3 members, one per zone: a majority of 3 left, survives; the report says what it read', () => {
    const peers = ['a', 'b', 'c'].map((n) => `etcd-${n}=http://etcd-${n}.etcd:2380`).join(',');
    const w = only(check(statefulSet({ image: 'quay.io/coreos/etcd:v3.6.4', replicas: 3, env: { ETCD_INITIAL_CLUSTER: peers } })));
    expect(w).toMatchObject({ needed: 2, survives: allZones(true) });
    expect(w.neededBecause).toBe('etcd: a majority of its 3 voters (ETCD_INITIAL_CLUSTER lists 3 voters)');
  });

  test('5 members listed but 3 pods: a zone loss leaves 2 of 5 voters, no majority (pods that never run count as lost)', () => {
    const peers = [0, 1, 2, 3, 4].map((i) => `m${i}=http://m${i}:2380`).join(',');
    const args = [`--initial-cluster=${peers}`];
    const w = only(check(statefulSet({ image: 'registry.k8s.io/etcd:3.5.21-0', replicas: 3, args })));
    expect(w).toMatchObject({ needed: 3, survives: allZones(false) });
  });

  test('one member listed under several URLs counts once; a list built by the shell falls back to the replicas', () => {
    const list = 'a=http://1:2380,a=http://2:2380,b=http://3:2380';
    const w = only(check(statefulSet({ image: 'etcd', replicas: 3, args: ['--initial-cluster', list] })));
    expect(w.neededBecause).toContain('--initial-cluster lists 2 voters');
    const shell = only(check(statefulSet({ image: 'bitnamilegacy/etcd:3.6', replicas: 3, args: ['--initial-cluster', '${PEERS}'] })));
    expect(shell.neededBecause).toContain('3 replicas (the initial cluster is built at run time)');
  });
});

describe('ZooKeeper', () => {
  test('zoo.cfg server.N lines from a mounted ConfigMap; an observer does not vote', () => {
    const cfg = ['server.1=zk-0:2888:3888', 'server.2=zk-1:2888:3888', 'server.3=zk-2:2888:3888', 'server.4=zk-3:2888:3888:observer'].join('\n');
    const r = check(configMap('zk', { 'zoo.cfg': `tickTime=2000\n${cfg}\n` }), statefulSet({ image: 'zookeeper:3.9', replicas: 4, mounts: [{ name: 'zk' }] }));
    expect(only(r).neededBecause).toBe('ZooKeeper: a majority of its 3 voters (server.N lines of zoo.cfg lists 3 voters)');
  });

  test.each([
    ['ZOO_SERVERS', 'server.1=zk-0:2888:3888;2181 server.2=zk-1:2888:3888;2181 server.3=zk-2:2888:3888;2181', 3],
    ['ZOO_SERVERS', 'zk-0.h:2888:3888::1 zk-1.h:2888:3888::2 zk-2.h:2888:3888::3 zk-3.h:2888:3888::4 zk-4.h:2888:3888::5 ', 5],
    ['ZOOKEEPER_SERVERS', 'zk-0:2888:3888;zk-1:2888:3888;zk-2:2888:3888', 3],
  ])('%s %s: %d voters', (env, value, voters) => {
    const w = only(check(statefulSet({ image: 'bitnami/zookeeper:3.9.3', replicas: voters, env: { [env]: value } })));
    expect(w.needed).toBe(Math.floor(voters / 2) + 1);
  });

  test('a count only: start-zookeeper --servers=3', () => {
    const args = ['sh', '-c', 'start-zookeeper --servers=3 --data_dir=/var/lib/zookeeper/data'];
    const w = only(check(statefulSet({ image: 'registry.k8s.io/kubernetes-zookeeper:1.0-3.4.10', replicas: 3, args })));
    expect(w.neededBecause).toContain('--servers or ZK_REPLICAS lists 3 voters');
  });
});

describe('Consul servers', () => {
  test('5 servers, one per zone, -bootstrap-expect=5: 3 placed, 2 Pending forever, so it never elects a leader', () => {
    const args = ['agent', '-server', '-bootstrap-expect=5'];
    const w = only(check(statefulSet({ image: 'hashicorp/consul:1.21', replicas: 5, onePerZone: true, args })));
    expect(w.pendingWorstCase).toBe(2);
    expect(w.survives).toEqual(allZones(false));
    expect(errorRules(w)).toEqual(['pending', 'quorum-never-forms', 'zone-loss']);
    expect(w.findings.find((f) => f.rule === 'quorum-never-forms')!.message).toContain('it forms only with 5');
  });

  test('bootstrap_expect in the chart\'s server.json ConfigMap, 3 servers spread: forms, and survives a zone', () => {
    const r = check(configMap('consul-server-config', { 'server.json': '{"bootstrap_expect": 3, "server": true, "retry_join": ["consul-server.ns.svc:8301"]}' }),
      statefulSet({ image: 'hashicorp/consul:1.21', replicas: 3, args: ['agent', '-config-dir=/consul/config'], mounts: [{ name: 'consul-server-config' }] }));
    expect(only(r)).toMatchObject({ needed: 2, survives: allZones(true) });
    expect(only(r).neededBecause).toContain('all 3 of bootstrap_expect in a mounted config');
  });

  test('a client agent is no voter: it needs one pod', () => {
    expect(only(check(statefulSet({ image: 'hashicorp/consul', replicas: 3, args: ['agent', '-retry-join=consul'] }))).needed).toBe(1);
  });
});

describe('Vault, NATS, Kafka', () => {
  test('Vault with storage "raft": it forms from one node; 3 spread voters survive a zone; Consul-backed Vault is no raft', () => {
    const raft = configMap('vault-config', { 'extraconfig-from-values.hcl': 'storage "raft" {\n  path = "/vault/data"\n}\n' });
    const w = only(check(raft, statefulSet({ image: 'hashicorp/vault:1.20', replicas: 3, mounts: [{ name: 'vault-config' }] })));
    expect(w).toMatchObject({ needed: 2, survives: allZones(true) });
    const consul = configMap('vault-config', { 'config.hcl': 'storage "consul" {}' });
    const consulBacked = statefulSet({ image: 'hashicorp/vault:1.20', replicas: 3, mounts: [{ name: 'vault-config' }] });
    expect(only(check(consul, consulBacked)).needed).toBe(1);
  });

  test('NATS: JetStream with cluster routes in a Secret (base64) counts the routes; core NATS has no quorum', () => {
    const conf = 'jetstream { store_dir: /data }\ncluster { name: c, routes = [ nats://n-0.n:6222, nats://n-1.n:6222, nats://n-2.n:6222, nats://n-3.n:6222, nats://n-4.n:6222 ] }';
    const data = { 'nats.conf': Buffer.from(conf).toString('base64') };
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'nats', namespace: 'ns' }, data };
    const w = only(check(secret, statefulSet({ image: 'nats:2.14.2-alpine', replicas: 3, mounts: [{ name: 'nats', secret: true }] })));
    expect(w).toMatchObject({ needed: 3, survives: allZones(false) });
    expect(w.neededBecause).toContain('cluster routes lists 5 voters');
    const core = configMap('nats', { 'nats.conf': 'cluster { routes = [ nats://n-0.n:6222 ] }' });
    expect(only(check(core, statefulSet({ image: 'nats', replicas: 3, mounts: [{ name: 'nats' }] }))).needed).toBe(1);
  });

  test('Kafka: controllers vote by controller.quorum.voters; brokers never do', () => {
    const voters = '0@k-0:9093,1@k-1:9093,2@k-2:9093';
    const env = { KAFKA_PROCESS_ROLES: 'broker,controller', KAFKA_CONTROLLER_QUORUM_VOTERS: voters };
    const w = only(check(statefulSet({ image: 'apache/kafka:4.1.0', replicas: 3, env })));
    expect(w.neededBecause).toBe('Kafka KRaft: a majority of its 3 voters (KAFKA_CONTROLLER_QUORUM_VOTERS lists 3 voters)');
    expect(only(check(statefulSet({ image: 'bitnami/kafka:4.0', replicas: 3, env: { KAFKA_CFG_PROCESS_ROLES: 'broker' } }))).needed).toBe(1);
  });

  test('comma-separated lists on a config line count every entry (Bitnami Kafka\'s server.properties, etcd\'s YAML)', () => {
    // the bitnami/kafka chart's kafka-controller-configuration (controller.controllerOnly, 5 controllers): the list
    // was read only up to its first comma, so 1 voter
    const servers = [0, 1, 2, 3, 4].map((i) => `kafka-controller-${i}.kafka-controller-headless.kafka.svc.cluster.local:9093`);
    const properties = `# Listeners\nprocess.roles=controller\ncontroller.quorum.bootstrap.servers=${servers.join(',')}\nnode.id=0\n`;
    const kafka = check(configMap('kafka-controller-configuration', { 'server.properties': properties }),
      statefulSet({ image: 'docker.io/bitnami/kafka:4.0.0-debian-12-r10', replicas: 5, onePerZone: true, mounts: [{ name: 'kafka-controller-configuration' }] }));
    expect(only(kafka).neededBecause).toBe('Kafka KRaft: a majority of its 5 voters (controller.quorum.bootstrap.servers in a mounted config lists 5 voters)');
    expect(only(kafka)).toMatchObject({ needed: 3, survives: allZones(false) });
    const peers = ['a', 'b', 'c'].map((n) => `etcd-${n}=http://etcd-${n}.etcd:2380`).join(',');
    const etcd = check(configMap('etcd-conf', { 'etcd.conf.yml': `name: etcd-a\ninitial-cluster: '${peers}' # all members\n` }),
      statefulSet({ image: 'quay.io/coreos/etcd:v3.6.4', replicas: 3, mounts: [{ name: 'etcd-conf' }] }));
    expect(only(etcd).neededBecause).toContain('initial-cluster in a mounted config lists 3 voters');
  });

  test('our quorum annotation wins over what is recognised', () => {
    const s = statefulSet({ image: 'etcd', replicas: 3 }) as any;
    s.metadata.annotations = { 'cdk8s-zones.dev/quorum': '1' };
    expect(only(check(s)).needed).toBe(1);
  });
});
