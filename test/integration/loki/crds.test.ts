/**
 * Every LokiStack the construct emits passes the upstream CRD's OpenAPI schema (strict: unknown fields
 * are errors), for the example and a table of construct configurations.
 */
import { App, Testing } from 'cdk8s';
import { build } from '../../../examples/loki-operator-3-zones/main';
import {
  LokiObjectStorageType,
  LokiOperatorOptions,
  LokiStackSize,
  ZoneAwareLokiStack,
  ZoneAwareLokiStackProps,
  ZoneTopology,
} from '../../../src';
import { testChart } from '../../util';
import { CrdSchemas } from '../crd-schema';

const schemas = CrdSchemas.fromShared();
const topology = new ZoneTopology({ zones: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] });

function lokiStacks(manifests: any[]): any[] {
  return manifests.filter((m) => m.kind === 'LokiStack');
}

type Case = Partial<Omit<ZoneAwareLokiStackProps, 'operator'>> & { operator?: Partial<LokiOperatorOptions> };

function configuration(props: Case): any[] {
  const chart = testChart();
  new ZoneAwareLokiStack(chart, 'loki', {
    topology,
    ...props,
    operator: {
      objectStorage: { secretName: 's3', type: LokiObjectStorageType.S3 },
      storageClassName: 'gp3',
      ...props.operator,
    },
  });
  return Testing.synth(chart);
}

const cases: [string, Case][] = [
  ['defaults', {}],
  ['everything set', {
    replicationFactor: 3,
    maxSkew: 2,
    namespace: 'logs',
    name: 'audit',
    operator: {
      size: LokiStackSize.ONE_X_MEDIUM,
      ingesterReplicas: 6,
      objectStorage: { secretName: 'gcs', type: LokiObjectStorageType.GCS },
      storageClassName: 'gp3',
      extraTopologyKeys: ['topology.kubernetes.io/region', 'example.com/rack'],
    },
  }],
  ['four zones, RF 3, the demo size (its ingester count raised to survive a zone loss)', {
    topology: new ZoneTopology({ zones: ['a', 'b', 'c', 'd'] }),
    replicationFactor: 3,
    operator: { size: LokiStackSize.ONE_X_DEMO },
  }],
  ...Object.values(LokiObjectStorageType).map((type): [string, Case] => [
    `storage ${type}`,
    { operator: { objectStorage: { secretName: 'x', type } } },
  ]),
];

describe('every emitted LokiStack passes the upstream CRD schema', () => {
  test.each(cases)('%s', (_, props) => {
    const [stack, ...more] = lokiStacks(configuration(props));
    expect(more).toEqual([]);
    expect(schemas.errors(stack)).toEqual([]);
  });

  test('example loki-operator-3-zones', () => {
    const app = new App();
    build(app);
    const stacks = lokiStacks(app.charts.flatMap((c) => Testing.synth(c)));
    expect(stacks).toHaveLength(1);
    expect(schemas.errors(stacks[0])).toEqual([]);
  });

  test('the validator is strict: the deprecated field spelt wrong, or a zone without its key, fails', () => {
    const [stack] = lokiStacks(configuration({}));
    const broken = {
      ...stack,
      spec: { ...stack.spec, replicationFactr: 3, replication: { factor: 0, zones: [{ maxSkew: 1 }] } },
    };
    expect(schemas.errors(broken).join('\n')).toMatch(/additional properties \(replicationFactr\)[\s\S]*topologyKey|topologyKey[\s\S]*replicationFactr/);
  });
});
