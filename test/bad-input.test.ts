/**
 * Every public entry point, fed every kind of wrong value a JavaScript caller can pass. For each parameter
 * and each prop of each struct (nested ones too), read from the jsii assembly so that a new prop is covered
 * without writing a case, the test passes values of the wrong type, null, NaN, Infinity, enum values that
 * do not exist and props that do not exist. Each must be refused with the library's error (who, prop,
 * value, rule), never accepted silently and never crash with a TypeError. The tally is the audit's
 * figure: bad inputs tried, clear errors, silent, crashes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Chart } from 'cdk8s';
import { CONSTRUCT_CALLS } from './bad-input-construct-calls';
import { Call, chart, CONTROLLER, PW, synth, topology } from './bad-input-fixtures';
import { PLANNING_CALLS } from './bad-input-planning-calls';
import * as lib from '../src';

const ASSEMBLY = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '.jsii'), 'utf8'));
const TYPES: Record<string, any> = ASSEMBLY.types;

/**
 * Each callable of the public API with a valid call to vary (bad-input-planning-calls.ts,
 * bad-input-construct-calls.ts).
 */
const ENTRIES: Record<string, Call> = { ...PLANNING_CALLS, ...CONSTRUCT_CALLS };

/**
 * Queries that answer about a value rather than build from it (a wrong value gets a wrong-value answer), and
 * ZoneCheckValidation.validate, whose argument is the cdk8s CLI's context (test/check/validation-plugin.test.ts).
 */
const QUERIES = new Set([
  'ZoneTopology.hasZone', 'ZoneTopology.nodeLabelsForZone', 'Quorum.required', 'ShardPlan.shardFor', 'ShardPlan.shardsInZone',
  'RedisShardLayout.node', 'RedisShardLayout.nodesInZone', 'RedisShardLayout.toJson', 'ZoneController.isZoneController',
  'ZoneReport.survivesLossOf', 'ZoneReport.failingOnLossOf', 'ZoneCheckValidation.validate',
]);

/**
 * Every callable of the assembly with parameters: `Class.<init>` and `Class.method`, with the jsii types of its
 * parameters.
 */
function callables(): Map<string, any[]> {
  const found = new Map<string, any[]>();
  for (const type of Object.values(TYPES)) {
    if (type.kind !== 'class') continue;
    if (type.initializer?.parameters?.length) found.set(`${type.name}.<init>`, type.initializer.parameters);
    for (const m of type.methods ?? []) if (m.parameters?.length) found.set(`${type.name}.${m.name}`, m.parameters);
  }
  return found;
}

/** Values of the wrong kind for a jsii type reference. */
function hostile(type: any): unknown[] {
  if (type.primitive === 'string') return [42, true, null, { x: 1 }, ['x']];
  if (type.primitive === 'number') return ['3', Number.NaN, Number.POSITIVE_INFINITY, null, true];
  if (type.primitive === 'boolean') return ['yes', 1, null];
  if (type.primitive === 'any' || type.primitive === 'json') return [];
  if (type.union) return [true, null, { x: 1 }, []];
  if (type.collection?.kind === 'array') return ['x', 42, { x: 1 }, [null]];
  if (type.collection?.kind === 'map') {
    const hasTypedValues = type.collection.elementtype.primitive !== 'any';
    return ['x', 42, [], ...(hasTypedValues ? [{ k: null }] : [])];
  }
  const fqn: string = type.fqn;
  const local = TYPES[fqn];
  if (local?.kind === 'enum') return ['Sometimes', 42, null];
  if (local?.kind === 'interface' && local.datatype) return ['x', 42, [], null];
  return ['x', 42, { x: 1 }, null]; // a class (ours or a dependency's) or a dependency's struct or enum
}

/** The props of a struct, its parents' included. */
function structProps(fqn: string): any[] {
  const t = TYPES[fqn];
  if (!t) return [];
  return [...(t.interfaces ?? []).flatMap(structProps), ...(t.properties ?? [])];
}

interface Mutation {
  readonly label: string;
  /** The name the error must mention. */
  readonly prop: string;
  readonly value: unknown;
}

/** Every mutation of `value` (of jsii type `type`): hostile values for it, then for each of its props, recursively. */
function mutations(type: any, value: unknown, label: string, prop: string): Mutation[] {
  const out: Mutation[] = hostile(type).map((v) => ({ label: `${label}=${show(v)}`, prop, value: v }));
  const struct = TYPES[type.fqn];
  if (struct?.kind === 'interface' && struct.datatype && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const p of structProps(type.fqn)) {
      for (const m of mutations(p.type, (value as any)[p.name], `${label}.${p.name}`, p.name)) {
        out.push({ ...m, value: { ...(value as object), [p.name]: m.value } });
      }
    }
    out.push({ label: `${label}.bogusProp`, prop: 'bogusProp', value: { ...(value as object), bogusProp: 1 } });
  }
  const isStructList = type.collection?.kind === 'array'
    && Array.isArray(value)
    && value.length > 0
    && TYPES[type.collection.elementtype.fqn]?.datatype;
  if (isStructList) {
    for (const m of mutations(type.collection.elementtype, value[0], `${label}[0]`, m0(label))) {
      out.push({ ...m, value: [m.value, ...value.slice(1)] });
    }
  }
  return out;
}
const m0 = (label: string) => label.split(/[.[]/).pop()!;

function show(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return JSON.stringify(v) ?? String(v);
}

/** What happened to one bad input. */
type Outcome = 'clear' | 'silent' | 'crash' | 'unclear';

function run(
  entry: typeof ENTRIES[string],
  index: number,
  value: unknown,
  prop: string,
): { outcome: Outcome; message: string } {
  const args = entry.args();
  args[index + (entry.offset ?? 0)] = value;
  try {
    entry.call(args);
    return { outcome: 'silent', message: 'accepted' };
  } catch (e) {
    const message = (e as Error).message ?? String(e);
    const isCrash = !(e instanceof Error)
      || e instanceof TypeError
      || e instanceof RangeError
      || e instanceof SyntaxError;
    if (isCrash) return { outcome: 'crash', message };
    // The library's format: `<who>: <prop path>=<value> <rule>`, naming the prop (or its parent, for a wrong
    // container).
    const clear = /^[\w.]+( '[^']*')?(\.\w+)?(\([^)]*\))?: \S+=/m.test(message.replace(/^Validation failed with the following errors:\n\s+\[[^\]]*\] /, ''))
      && message.includes(prop);
    return { outcome: clear ? 'clear' : 'unclear', message };
  }
}

const all = callables();
const cases: [string, string, number, unknown, string][] = [];
for (const [name, params] of all) {
  if (QUERIES.has(name)) continue;
  for (const entryName of Object.keys(ENTRIES).filter((k) => k === name || k.startsWith(`${name} (`))) {
    const entry = ENTRIES[entryName];
    const valid = entry.args();
    const isConstructor = name.endsWith('.<init>') && params.length === 3 && params[0].name === 'scope';
    const varied = entry.vary ?? (isConstructor ? [2] : params.map((_: any, i: number) => i));
    for (const i of varied) {
      for (const m of mutations(params[i].type, valid[i + (entry.offset ?? 0)], params[i].name, params[i].name)) {
        cases.push([entryName, m.label, i, m.value, m.prop]);
      }
    }
  }
}

test('every public callable (but the queries) has a valid call to vary, and that call succeeds', () => {
  const hasEntry = (n: string) => Object.keys(ENTRIES).some((k) => k === n || k.startsWith(`${n} (`));
  const missing = [...all.keys()].filter((n) => !QUERIES.has(n) && !hasEntry(n));
  expect(missing).toEqual([]);
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const result = (() => {
      try {
        entry.call(entry.args());
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect({ name, result }).toEqual({ name, result: 'ok' });
  }
});

const tally: Record<Outcome, number> = { clear: 0, silent: 0, crash: 0, unclear: 0 };
afterAll(() => {
  // The audit's figures (kept in the closing note).
  process.stdout.write(`bad inputs tried: ${cases.length}; clear errors: ${tally.clear}; silent: ${tally.silent}; crashes: ${tally.crash}; unclear: ${tally.unclear}\n`);
});

test.each(cases)('%s %s: refused with a clear error', (entryName, _label, index, value, prop) => {
  const { outcome, message } = run(ENTRIES[entryName], index, value, prop);
  tally[outcome]++;
  expect({ outcome, message }).toEqual({ outcome: 'clear', message: expect.stringContaining(prop) });
});

describe('the inputs of the outside audit, each refused with who, prop, value and rule', () => {
  const app = () => chart();
  /** Props of a ZonalRedisCluster in `c`, with its controller and `props`. */
  /** A ZonalRedisCluster in `c`, served by its controller. */
  const newRedis = (c: Chart, props: Omit<lib.ZonalRedisClusterProps, 'controller'>) =>
    new lib.ZonalRedisCluster(c, 'r', { controller: CONTROLLER.get(c)!, ...props });
  test.each<[string, () => unknown, RegExp]>([
    ['Redis name with upper case', () => newRedis(app(), { topology: topology(), masters: 3, name: 'Redis_Main', password: PW }), /ZonalRedisCluster 'test\/r': name="Redis_Main" is not a valid Service name/],
    ['LonghornStorageClass name', () => new lib.LonghornStorageClass(app(), 'sc', { name: 'Bad_Name' }), /LonghornStorageClass 'test\/sc': name="Bad_Name" is not a DNS subdomain/],
    ['Prometheus namespace', () => new lib.TopologyShardedPrometheus(app(), 'p', { topology: topology(), shards: 3, namespace: 'Bad_NS' }), /namespace="Bad_NS" is not a DNS label/],
    ['a Secret key with a space', () => newRedis(app(), { topology: topology(), masters: 3, password: { name: 'pw', key: 'bad key' } }), /password.key="bad key" is not a valid Secret or ConfigMap key/],
    [
      'an empty S3 bucket',
      () => new lib.ZoneAwareLokiStack(app(), 'l', { topology: topology(), direct: { objectStorage: { bucket: '' } } }),
      /direct.objectStorage.bucket="" is not a DNS subdomain/,
    ],
    ['maxSkew beyond int32', () => lib.TopologySpread.acrossZones({ topology: topology(), podLabels: { app: 'a' }, maxSkew: 3e9 }), /maxSkew=3000000000 must be an integer from 1 to 2147483647/],
    ['invalid podLabels', () => lib.TopologySpread.acrossZones({ topology: topology(), podLabels: { 'bad key': 'x' } }), /podLabels key="bad key" is not a valid label key/],
    [
      'an enum string that does not exist',
      () => lib.TopologySpread.acrossZones({
        topology: topology(),
        podLabels: { app: 'a' },
        whenUnsatisfiable: 'Sometimes' as any,
      }),
      /whenUnsatisfiable="Sometimes" must be one of WhenUnsatisfiable.DO_NOT_SCHEDULE/,
    ],
    ['20,000 Redis masters', () => newRedis(app(), { topology: topology(), masters: 20_000, password: PW }), /masters=20000 must be an integer from 3 to 16384/],
    ['a Redis layout over 1 MiB', () => newRedis(app(), { topology: topology(), masters: 4500, password: PW }), /masters=4500 with 9000 nodes makes a layout of \d+ bytes, over the 1048576 a ConfigMap may hold/],
    ['1e9 Prometheus shards', () => new lib.TopologyShardedPrometheus(app(), 'p', { topology: topology(), shards: 1e9 }), /shards=1000000000 must be an integer from 1 to 1000/],
    ['1e9 Redis masters', () => newRedis(app(), { topology: topology(), masters: 1e9, password: PW }), /masters=1000000000 must be an integer from 3 to 16384/],
    [
      '1e5 standalone shards',
      () => new lib.TopologyShardedPrometheus(app(), 'p', {
        topology: topology(),
        shards: 1e5,
        output: lib.PrometheusOutput.STANDALONE,
      }),
      /shards=100000 must be an integer from 1 to 1000/,
    ],
    ['zones as a string', () => new lib.ZoneTopology({ zones: 'zone-a' as any }), /ZoneTopology: zones="zone-a" must be a list of at least one zone name/],
    ['a null zone', () => new lib.ZoneTopology({ zones: [null as any] }), /ZoneTopology: zones\[0\]=null must be a zone name/],
    ['NaN printed as NaN', () => newRedis(app(), { topology: topology(), masters: Number.NaN, password: PW }), /masters=NaN must be/],
    [
      'Infinity printed as Infinity',
      () => lib.TopologySpread.acrossZones({
        topology: topology(),
        podLabels: { app: 'a' },
        maxSkew: Number.POSITIVE_INFINITY,
      }),
      /maxSkew=Infinity must be/,
    ],
  ])('%s', (_, make, message) => {
    // Constructs are synthesized too: some limits are checked with the whole app.
    expect(() => {
      const made = make();
      if (made instanceof lib.ZonalRedisCluster || made instanceof lib.TopologyShardedPrometheus) synth(Chart.of(made));
    }).toThrow(message);
  });

  test('a long construct id becomes a valid label value and object name', () => {
    const c = app();
    const id = `Long_Construct.Id-${'x'.repeat(80)}`;
    new lib.ZoneDisruptionBudget(c, id, { controller: CONTROLLER.get(c)!, selector: { app: 'db' }, maxUnavailable: 1 });
    const zdb = synth(c).find((o) => o.kind === 'ZoneDisruptionBudget');
    expect(zdb.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(zdb.metadata.labels['app.kubernetes.io/instance']).toMatch(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
  });

  test('the biggest inputs are refused before anything is planned that could not be stored', () => {
    expect(() => newRedis(app(), { topology: topology(), masters: 16_384, password: PW })).toThrow(/replicasPerMaster=1 with 16384 masters makes 32768 nodes/);
    expect(() => lib.RedisShardLayout.plan({ zones: ['a', 'b', 'c'], masters: 3, replicasPerMaster: 1e9 })).toThrow(/replicasPerMaster=1000000000 with 3 masters/);
  });
});
