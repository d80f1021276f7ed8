/**
 * Quorum software run as a plain StatefulSet or Deployment (pure): etcd, ZooKeeper, Consul servers, Vault with raft
 * storage, NATS JetStream and Kafka KRaft controllers, recognised by their image and their own configuration, with
 * the voters they elect among and how many must run for them to form. Where each reads its configuration, and the
 * formation rules, are cited beside each recogniser (their docs and sources).
 */
import { ContainerConfig, flagValue, hasFlag } from './pod-config';
import { majorityOf } from '../../topology/survival';

/** A consensus system and its voters, with what the check read them from. */
export interface RecognisedQuorum {
  readonly system: string;
  /** The voters it elects among (V). */
  readonly voters: number;
  /** The pods that must be placed for it to form at all (a majority of V; Consul: bootstrap_expect; Vault: 1). */
  readonly forms: number;
  /** What the check read (`ETCD_INITIAL_CLUSTER lists 3 members`). */
  readonly evidence: string;
}

/** One system: the images it runs as, and how its voters are read from a container. */
interface Recogniser {
  readonly system: string;
  readonly images: readonly string[];
  /** Its quorum, or undefined when this container is not a voter (a Consul client, a Kafka broker). */
  readonly read: (c: ContainerConfig, replicas: number) => Omit<RecognisedQuorum, 'system'> | undefined;
}

/** The pods' own count: what the charts generate their voter lists from. */
const fromReplicas = (replicas: number, why: string) => ({
  voters: replicas, forms: majorityOf(replicas), evidence: `${replicas} replicas (${why})`,
});

/** A voter list of `count` entries read from `where`. */
const listed = (count: number, where: string) => ({
  voters: count, forms: majorityOf(count), evidence: `${where} lists ${count} voters`,
});

/** A value from the env, a flag, or a `key: value` / `key=value` / `"key": value` line of a config file. */
function setting(
  c: ContainerConfig, env: readonly string[], flag: string | undefined, key: string | undefined,
): { value: string; where: string } | undefined {
  for (const name of env) {
    const v = c.env.get(name);
    if (v !== undefined) return { value: v, where: name };
  }
  const f = flag === undefined ? undefined : flagValue(c.words, flag);
  if (f !== undefined) return { value: f, where: `--${flag}` };
  if (key === undefined) return undefined;
  for (const file of c.files) {
    const value = fileSetting(file, key);
    if (value !== undefined) return { value, where: `${key} in a mounted config` };
  }
  return undefined;
}

/**
 * `key`'s value in one config file. A line of its own (`key=v` in server.properties, `key: v` in YAML, `key = v` in
 * HCL) holds the value to the end of the line: its lists are comma-separated (Bitnami Kafka's
 * `controller.quorum.bootstrap.servers=a:9093,b:9093,c:9093`), so a comma does not end it. Inside JSON or an inline
 * block (`"key": 3,`, `{key=v,`) a comma or brace does.
 */
function fileSetting(file: string, key: string): string | undefined {
  const k = key.replace(/[.]/g, '\\.');
  const line = new RegExp(`^[ \\t]*${k}[ \\t]*[:=][ \\t]*([^\\s#][^\\n#]*?)[ \\t]*(?:#.*)?$`, 'm').exec(file);
  const inline = new RegExp(`(?:^|[\\s{,])"?${k}"?\\s*[:=]\\s*("[^"\\n]*"|\\[[^\\]]*\\]|[^\\s,}#]+)`, 'm').exec(file);
  const value = (line ?? inline)?.[1];
  return value?.replace(/^"(.*)"$|^'(.*)'$/, (all, dq?: string, sq?: string) => dq ?? sq ?? all);
}

/** Unresolved shell or template text: a list built at run time, which the check cannot count. */
const unresolved = (value: string) => /\$\{?[A-Za-z_]|\$\(/.test(value);

/**
 * etcd (etcd.io/docs, op-guide/clustering; configuration: `--flag` is `ETCD_FLAG`): the members of
 * `--initial-cluster` (distinct names: one member may list several URLs); a majority of them elect.
 */
const ETCD: Recogniser = {
  system: 'etcd',
  images: ['etcd', 'etcd-amd64'],
  read: (c, replicas) => {
    const s = setting(c, ['ETCD_INITIAL_CLUSTER'], 'initial-cluster', 'initial-cluster');
    if (s && !unresolved(s.value)) {
      const names = new Set(s.value.split(',').map((m) => m.split('=')[0].trim()).filter((n) => n !== ''));
      if (names.size > 0) return listed(names.size, s.where);
    }
    const size = c.env.get('INITIAL_CLUSTER_SIZE');
    if (size !== undefined && /^\d+$/.test(size)) return listed(Number(size), 'INITIAL_CLUSTER_SIZE');
    return fromReplicas(replicas, 'the initial cluster is built at run time');
  },
};

/**
 * ZooKeeper (zookeeper.apache.org, zookeeperAdmin and zookeeperReconfig): `server.N=` lines of zoo.cfg, or the
 * images' ZOO_SERVERS / ZOOKEEPER_SERVERS lists, or a count (`--servers=N`, ZK_REPLICAS); observers do not vote.
 */
const ZOOKEEPER: Recogniser = {
  system: 'ZooKeeper',
  images: ['zookeeper', 'cp-zookeeper', 'kubernetes-zookeeper', 'k8szk'],
  read: (c, replicas) => {
    for (const file of c.files) {
      const lines = file.split('\n').filter((l) => /^\s*server\.\d+\s*=/.test(l));
      if (lines.length > 0) return listed(lines.filter((l) => !/:observer\b/.test(l)).length, 'server.N lines of zoo.cfg');
    }
    for (const name of ['ZOO_SERVERS', 'ZOOKEEPER_SERVERS']) {
      const v = c.env.get(name);
      if (v === undefined || unresolved(v)) continue;
      // the official image: `server.1=zoo1:2888:3888;2181 ...`; Bitnami's: `zoo1:2888:3888::1,...`;
      // cp-zookeeper: `zoo1:2888:3888;...`
      const entries = v.split(/[\s,;]+/).filter((e) => /^(server\.\d+=)?[^\s:=]+:\d+:\d+/.test(e));
      const voters = entries.filter((e) => !/:observer\b/.test(e));
      if (voters.length > 0) return listed(voters.length, name);
    }
    const count = flagValue(c.words, 'servers') ?? c.env.get('ZK_REPLICAS');
    if (count !== undefined && /^\d+$/.test(count)) return listed(Number(count), '--servers or ZK_REPLICAS');
    return fromReplicas(replicas, 'no server list in its configuration');
  },
};

/**
 * Consul servers (developer.hashicorp.com/consul, agent configuration `bootstrap_expect`; consul's
 * agent/consul/server_serf.go maybeBootstrap): no leader until `bootstrap_expect` servers have joined, then a
 * majority of the servers. Client agents are no voters.
 */
const CONSUL: Recogniser = {
  system: 'Consul',
  images: ['consul', 'consul-enterprise'],
  read: (c, replicas) => {
    const bitnami = c.env.has('CONSUL_RETRY_JOIN') || c.env.has('CONSUL_BOOTSTRAP_EXPECT');
    const server = hasFlag(c.words, 'server') || c.files.some((f) => /"?server"?\s*[:=]\s*true/.test(f))
      || (bitnami && (c.env.get('CONSUL_AGENT_MODE') ?? 'server') === 'server');
    if (!server) return undefined;
    if (hasFlag(c.words, 'bootstrap')) return { voters: replicas, forms: 1, evidence: '-bootstrap (it elects itself)' };
    const s = setting(c, ['CONSUL_BOOTSTRAP_EXPECT'], 'bootstrap-expect', 'bootstrap_expect');
    const expect = s !== undefined && /^\d+$/.test(s.value) ? Number(s.value) : undefined;
    if (expect === undefined) return fromReplicas(replicas, 'no bootstrap_expect');
    return {
      voters: replicas,
      forms: Math.max(expect, 1),
      evidence: `${replicas} servers; it elects its first leader only once all ${expect} of ${s!.where} have joined`,
    };
  },
};

/**
 * Vault with integrated storage (developer.hashicorp.com/vault, configuration/storage/raft and
 * concepts/integrated-storage): it forms from one initialised node and grows as the others join; every pod that
 * joins votes, unless it joins as a non-voter.
 */
const VAULT: Recogniser = {
  system: 'Vault (raft storage)',
  images: ['vault', 'vault-enterprise', 'openbao'],
  read: (c, replicas) => {
    const raft = [...c.files, c.words.join(' ')].some((t) => /storage\s+"raft"|"storage"\s*:\s*\{\s*"raft"/.test(t));
    if (!raft) return undefined;
    const nonVoters = [...c.files].some((t) => /retry_join_as_non_voter\s*=\s*true/.test(t))
      || c.env.get('VAULT_RAFT_RETRY_JOIN_AS_NON_VOTER') === 'true';
    if (nonVoters) return undefined;
    return { voters: replicas, forms: 1, evidence: `${replicas} replicas with storage "raft" (every node that joins votes)` };
  },
};

/**
 * NATS with JetStream in a cluster (docs.nats.io/jetstream/clustering; nats-server raft.go bootstrapRaftNode): the
 * meta group expects the configured routes' servers, and a majority of them elect. Core NATS has no quorum.
 */
const NATS: Recogniser = {
  system: 'NATS JetStream',
  images: ['nats'],
  read: (c, replicas) => {
    const text = [...c.files, c.words.join(' ')].join('\n');
    const jetstream = /jetstream\s*[:{]|"jetstream"\s*:|(?:^|\s)(?:-js|--jetstream)(?:\s|$)/m.test(text)
      && !/jetstream\s*:\s*(?:disabled|false)/.test(text);
    const clustered = /cluster\s*[:{]|"cluster"\s*:/.test(text);
    if (!jetstream || !clustered) return undefined;
    const routes = new Set(text.match(/nats(?:-route)?:\/\/[^\s",\]]+/g) ?? []);
    return routes.size > 0 ? listed(routes.size, 'cluster routes') : fromReplicas(replicas, 'no routes listed');
  },
};

/**
 * Kafka in KRaft mode (kafka.apache.org/documentation KRaft; Confluent and Bitnami env forms): only nodes whose
 * process.roles has `controller` vote; the voters are `controller.quorum.voters`, or the
 * `controller.quorum.bootstrap.servers` of a dynamic quorum.
 */
const KAFKA: Recogniser = {
  system: 'Kafka KRaft',
  images: ['kafka', 'kafka-native', 'cp-kafka', 'cp-server'],
  read: (c, replicas) => {
    const roles = setting(c, ['KAFKA_PROCESS_ROLES', 'KAFKA_CFG_PROCESS_ROLES'], undefined, 'process.roles');
    if (roles === undefined || !roles.value.split(',').map((r) => r.trim()).includes('controller')) return undefined;
    for (const [env, key] of [
      [['KAFKA_CONTROLLER_QUORUM_VOTERS', 'KAFKA_CFG_CONTROLLER_QUORUM_VOTERS'], 'controller.quorum.voters'],
      [['KAFKA_CONTROLLER_QUORUM_BOOTSTRAP_SERVERS', 'KAFKA_CFG_CONTROLLER_QUORUM_BOOTSTRAP_SERVERS'], 'controller.quorum.bootstrap.servers'],
    ] as const) {
      const s = setting(c, env, undefined, key);
      if (s !== undefined && !unresolved(s.value)) {
        const entries = s.value.split(',').filter((e) => e.trim() !== '');
        if (entries.length > 0) return listed(entries.length, s.where);
      }
    }
    return fromReplicas(replicas, 'no voter list in its configuration');
  },
};

const RECOGNISERS: readonly Recogniser[] = [ETCD, ZOOKEEPER, CONSUL, VAULT, NATS, KAFKA];

/** The quorum system a pod runs, read from the first container that is one. */
export function recogniseQuorum(
  containers: readonly ContainerConfig[], replicas: number,
): RecognisedQuorum | undefined {
  for (const c of containers) {
    for (const r of RECOGNISERS.filter((x) => x.images.includes(c.image))) {
      const found = r.read(c, replicas);
      if (found !== undefined) return { system: r.system, ...found };
    }
  }
  return undefined;
}
