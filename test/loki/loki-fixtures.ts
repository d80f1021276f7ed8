import {
  LokiDirectOptions, LokiObjectStorageType, LokiOperatorOptions, ZoneAwareLokiStack, ZoneAwareLokiStackProps,
  ZoneController, ZoneTopology,
} from '../../src';
import { warningsOf } from '../../src/shared/warnings';
import { synth, testChart } from '../util';

/** What the ZoneAwareLokiStack tests share: a topology, a controller, and a stack of each output synthesized. */
export const topology = new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] });
export const at135 = new ZoneTopology({ zones: topology.zones, kubernetesVersion: '1.35' });
export const operatorStorage = { secretName: 'loki-s3', type: LokiObjectStorageType.S3 };
export const controller = new ZoneController(testChart(), 'zones', { image: 'ghcr.io/example/cdk8s-zones-controller:0.1.0' });

/** The props both outputs share, and those of one output, as one flat object (split by `split`). */
export type Common = Omit<ZoneAwareLokiStackProps, 'operator' | 'direct'>;
const COMMON: (keyof Common)[] = ['topology', 'replicationFactor', 'maxSkew', 'name', 'namespace'];

function split<O>(flat: Partial<Common> & Partial<O>): [Partial<Common>, Partial<O>] {
  const common: any = {};
  const rest: any = {};
  for (const [k, v] of Object.entries(flat)) (COMMON.includes(k as keyof Common) ? common : rest)[k] = v;
  return [common, rest];
}

export function operator(props: Partial<Common & LokiOperatorOptions> = {}): any[] {
  const chart = testChart();
  const [common, options] = split<LokiOperatorOptions>(props);
  new ZoneAwareLokiStack(chart, 'loki', {
    topology,
    namespace: 'logs',
    name: 'loki',
    ...common,
    operator: { objectStorage: operatorStorage, storageClassName: 'gp3', ...options },
  });
  return synth(chart);
}

export function direct(props: Partial<Common & LokiDirectOptions> = {}): { manifests: any[]; warnings: string[] } {
  const chart = testChart();
  const [common, options] = split<LokiDirectOptions>(props);
  new ZoneAwareLokiStack(chart, 'loki', {
    topology,
    namespace: 'logs',
    name: 'loki',
    ...common,
    direct: { objectStorage: { bucket: 'logs', endpoint: 'minio:9000', credentialsSecretName: 'minio' }, ...options },
  });
  return { manifests: synth(chart), warnings: warningsOf(chart) };
}

export function container(workload: any): any {
  return workload.spec.template.spec.containers[0];
}

