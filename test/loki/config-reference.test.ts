/**
 * Every Loki configuration the library writes keeps to Loki 3.7's published configuration reference (fields,
 * types, documented values: config-reference.ts, written from the reference and citing it): the examples'
 * configurations, the direct output's over its props, and the configuration builder over every input. The
 * check itself fails on a misspelt field, a wrong type and an undocumented value.
 */
import { Chart, Testing } from 'cdk8s';
import * as fc from 'fast-check';
import { parse } from 'yaml';
import { flagViolations, referenceViolations } from './config-reference';
import { ZoneAwareLokiStack, ZoneController, ZoneSource, ZoneTopology } from '../../src';
import { lokiConfig, LokiConfigInput, renderLokiConfig } from '../../src/loki/config';
import { EXAMPLE_NAMES, synthesizeExample } from '../example-apps';
import { HOSTILE_VARIANT, STANDARD_VARIANT } from '../example-variants';

/** The Loki configurations among synthesized objects: the `config.yaml` of ConfigMaps labelled as Loki's. */
function lokiConfigs(objects: any[]): any[] {
  return objects
    .filter((o) => o.kind === 'ConfigMap' && o.metadata.labels?.['app.kubernetes.io/name'] === 'loki' && o.data?.['config.yaml'] !== undefined)
    .map((o) => parse(o.data['config.yaml']));
}

/** The arguments of every Loki container among synthesized objects (those that pick a component with -target=). */
function lokiArgs(objects: any[]): { where: string; args: string[]; text?: string }[] {
  return objects.filter((o) => o.spec?.template?.spec).flatMap((w) => w.spec.template.spec.containers
    .filter((c: any) => (c.args ?? []).some((a: string) => a.startsWith('-target=')))
    .map((c: any) => ({ where: `${w.kind} ${w.metadata.name}`, args: c.args })));
}

/** A configuration that refers to the environment needs -config.expand-env=true on every container that reads it. */
function expansionViolations(objects: any[]): string[] {
  const refersToEnv = objects.some((o) => o.kind === 'ConfigMap' && /\$\{/.test(o.data?.['config.yaml'] ?? ''));
  return refersToEnv ? lokiArgs(objects).filter((c) => !c.args.includes('-config.expand-env=true')).map((c) => `${c.where}: no -config.expand-env=true`) : [];
}

describe('the examples', () => {
  const configs = EXAMPLE_NAMES.flatMap((name) => [STANDARD_VARIANT, HOSTILE_VARIANT]
    .flatMap((variant) => {
      const variantName = variant === STANDARD_VARIANT ? 'standard' : 'hostile';
      return lokiConfigs(synthesizeExample(name, variant)).map((config, i) => [`${name} ${variantName} #${i}`, config]);
    }));

  test('at least one example writes a Loki configuration', () => {
    expect(configs.length).toBeGreaterThan(0);
  });

  test.each(configs)('%s keeps to the reference', (_, config) => {
    expect(referenceViolations(config)).toEqual([]);
  });

  test.each(EXAMPLE_NAMES)('%s: every Loki container passes only documented flags, and expands the environment its configuration names', (name) => {
    const objects = synthesizeExample(name, STANDARD_VARIANT);
    expect(lokiArgs(objects).flatMap((c) => flagViolations(c.args).map((v) => `${c.where}: ${v}`))).toEqual([]);
    expect(expansionViolations(objects)).toEqual([]);
  });
});

test('the direct output, over its props, keeps to the reference', () => {
  fc.assert(fc.property(
    fc.record({
      // The layouts the construct accepts: a zone down keeps the write quorum.
      zones: fc.integer({ min: 3, max: 5 }),
      replicationFactor: fc.integer({ min: 3, max: 5 }),
      s3: fc.option(fc.record({
        bucket: fc.constantFrom('logs', 'my.bucket'),
        endpoint: fc.option(fc.constantFrom('minio:9000', 's3.example.com'), { nil: undefined }),
        region: fc.option(fc.constantFrom('eu-west-1', 'us-east-2'), { nil: undefined }),
        insecure: fc.option(fc.boolean(), { nil: undefined }),
        forcePathStyle: fc.option(fc.boolean(), { nil: undefined }),
        credentialsSecretName: fc.option(fc.constant('s3-keys'), { nil: undefined }),
      }), { nil: undefined }),
      ruler: fc.boolean(),
      gateway: fc.boolean(),
      zoneSource: fc.constantFrom('perZone', 'labels', 'controller'),
      ingesterReplicasPerZone: fc.integer({ min: 1, max: 3 }),
      // a migration to zone awareness in its first phase writes a second configuration (the read path's)
      migrating: fc.boolean(),
    }),
    (p) => {
      // a migration keeps the running ingesters: it needs a zone source that tells one StatefulSet's pods their zones
      const migrating = p.migrating && p.zoneSource !== 'perZone';
      const chart = new Chart(Testing.app(), 'c', { disableResourceNameHashes: true });
      // One controller (it rolls the ingesters out): the app as the docs lay it out, without warnings.
      const controller = new ZoneController(chart, 'zones', { workloadNamespaces: ['logs'], zoneAwareUpdate: true });
      const zoneSource = p.zoneSource === 'perZone' ? ZoneSource.perZoneStatefulSets()
        : p.zoneSource === 'labels' ? ZoneSource.podTopologyLabels() : ZoneSource.controller(controller);
      new ZoneAwareLokiStack(chart, 'loki', {
        name: 'logs',
        namespace: 'logs',
        topology: new ZoneTopology({ zones: Array.from({ length: p.zones }, (_, i) => `zone-${i}`), kubernetesVersion: '1.35' }),
        replicationFactor: Math.min(p.replicationFactor, p.zones),
        direct: {
          controller,
          ingesterReplicasPerZone: p.ingesterReplicasPerZone,
          zoneSource,
          objectStorage: p.s3,
          ruler: p.ruler,
          gateway: p.gateway,
          zoneAwarenessMigration: migrating ? {} : undefined,
        },
      });
      const objects = Testing.synth(chart);
      const configs = lokiConfigs(objects);
      expect(configs).toHaveLength(migrating ? 2 : 1);
      for (const config of configs) expect(referenceViolations(config)).toEqual([]);
      expect(lokiArgs(objects).flatMap((c) => flagViolations(c.args).map((v) => `${c.where}: ${v}`))).toEqual([]);
      expect(expansionViolations(objects)).toEqual([]);
    },
  ), { numRuns: 60 });
});

test('the configuration builder, over every input, keeps to the reference', () => {
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const seconds = fc.integer({ min: 1, max: 120 });
  fc.assert(fc.property(
    fc.record({
      replicationFactor: fc.integer({ min: 1, max: 7 }),
      zoneAwareness: fc.boolean(),
      instanceZone: optional(fc.constantFrom('zone-a', '${INSTANCE_AVAILABILITY_ZONE}')),
      instanceId: optional(fc.constant('ingester-0')),
      instanceAddr: optional(fc.constant('10.0.0.7')),
      httpPort: fc.integer({ min: 1, max: 65535 }),
      grpcPort: fc.integer({ min: 1, max: 65535 }),
      listenAddress: optional(fc.constant('0.0.0.0')),
      memberlistPort: fc.integer({ min: 1, max: 65535 }),
      memberlistBindAddr: optional(fc.constant('10.0.0.7')),
      joinMembers: fc.array(fc.constantFrom('loki-memberlist:7946', '10.0.0.8:7946'), { maxLength: 3 }),
      pathPrefix: fc.constantFrom('/var/loki', '/tmp/x'),
      storage: fc.oneof(
        fc.record({ type: fc.constant('filesystem' as const), directory: fc.constant('/var/loki/storage') }),
        fc.record({
          type: fc.constant('s3' as const),
          bucket: fc.constant('logs'),
          endpoint: optional(fc.constant('minio:9000')),
          region: optional(fc.constant('eu-west-1')),
          insecure: optional(fc.boolean()),
          forcePathStyle: optional(fc.boolean()),
        }),
      ),
      frontendAddress: optional(fc.constant('loki-query-frontend:9095')),
      compactorAddress: optional(fc.constant('http://loki-compactor:3100')),
      indexGatewayAddress: optional(fc.constant('dns:///loki-index-gateway:9095')),
      heartbeat: optional(fc.record({ periodSeconds: seconds, timeoutSeconds: seconds })),
      queryIngestersWithin: optional(fc.constantFrom('3h', '2m30s', '150s')),
    }),
    (input: LokiConfigInput) => {
      expect(referenceViolations(parse(renderLokiConfig(lokiConfig(input))))).toEqual([]);
    },
  ), { numRuns: 300 });
});

describe('the check fails where the reference does', () => {
  const base = parse(renderLokiConfig(lokiConfig({
    replicationFactor: 3,
    zoneAwareness: true,
    httpPort: 3100,
    grpcPort: 9095,
    memberlistPort: 7946,
    joinMembers: ['loki-memberlist:7946'],
    pathPrefix: '/var/loki',
    storage: { type: 's3', bucket: 'logs' },
    heartbeat: { periodSeconds: 1, timeoutSeconds: 6 },
  })));
  const change = (edit: (c: any) => void) => {
    const c = structuredClone(base);
    edit(c);
    return referenceViolations(c);
  };

  test('the base keeps to it', () => {
    expect(referenceViolations(base)).toEqual([]);
  });

  test.each([
    ['a misspelt field', (c: any) => { c.common.ring.zone_awareness_enabeld = true; }, 'common.ring.zone_awareness_enabeld: no such field in the reference\'s common.ring block'],
    ['a field of another block', (c: any) => { c.common.ring.min_ready_duration = '0s'; }, 'common.ring.min_ready_duration: no such field'],
    ['an unknown top-level block', (c: any) => { c.ingester_ring = {}; }, 'ingester_ring: no such field in the reference\'s top level block'],
    ['a number as a string', (c: any) => { c.common.replication_factor = 'three'; }, 'common.replication_factor: <int> expected, got "three"'],
    ['a boolean as a string', (c: any) => { c.common.ring.zone_awareness_enabled = 'true'; }, 'common.ring.zone_awareness_enabled: <boolean> expected, got "true"'],
    ['a duration without a unit', (c: any) => { c.common.ring.heartbeat_period = '5'; }, 'common.ring.heartbeat_period: <duration> expected, got "5"'],
    ['a duration in days (not a Go duration)', (c: any) => { c.common.ring.heartbeat_timeout = '1d'; }, 'common.ring.heartbeat_timeout: <duration> expected, got "1d"'],
    ['a string for a list', (c: any) => { c.memberlist.join_members = 'loki-memberlist:7946'; }, 'memberlist.join_members: <list of strings> expected'],
    ['an undocumented log level', (c: any) => { c.server.log_level = 'verbose'; }, 'server.log_level: one of debug, info, warn, error expected, got "verbose"'],
    ['an undocumented ring store', (c: any) => { c.common.ring.kvstore.store = 'zookeeper'; }, 'common.ring.kvstore.store: one of consul, etcd, inmemory, memberlist, multi expected'],
    ['a schema the reference does not recommend', (c: any) => { c.schema_config.configs[0].schema = 'v14'; }, 'schema_config.configs[0].schema: one of v13 expected, got "v14"'],
    ['a day that is no date', (c: any) => { c.schema_config.configs[0].from = 'yesterday'; }, 'schema_config.configs[0].from: <daytime> expected'],
    ['a block as a value', (c: any) => { c.storage_config = 'tsdb'; }, 'storage_config: a block must be a mapping, got "tsdb"'],
  ])('%s', (_, edit, message) => {
    expect(change(edit).join('\n')).toContain(message);
  });

  test.each([
    [['-target=ingester', '-config.expand-env=true', '-config.file=/etc/loki/config.yaml'], []],
    [['-target=ingestor'], ['-target: one of all, compactor, distributor']],
    [['-config.expand-env=yes'], ['-config.expand-env: <boolean> expected, got "yes"']],
    [['-common.ring.instance-availability-zone=zone-a'], ['-common.ring.instance-availability-zone: no such flag in the reference']],
    [['--target', 'ingester'], ['--target: not -flag=value', 'ingester: not -flag=value']],
  ])('flags %j', (args, messages) => {
    const found = flagViolations(args);
    expect(found).toHaveLength(messages.length);
    messages.forEach((m, i) => expect(found[i]).toContain(m));
  });
});
