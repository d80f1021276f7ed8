import { Chart, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import { TopologyShardedPrometheus, TopologyShardedPrometheusProps, ZoneTopology } from '../../src';
import { only } from '../util';

/** What the TopologyShardedPrometheus tests share: a topology, a synthesized chart, its shards and their configs. */
export const topology = new ZoneTopology({ zones: ['zone-a', 'zone-b', 'zone-c'] });

export function synthesize(props: Partial<TopologyShardedPrometheusProps>): { objects: any[]; chart: Chart } {
  const chart = new Chart(Testing.app(), 'mon', { namespace: 'monitoring', disableResourceNameHashes: true });
  new TopologyShardedPrometheus(chart, 'prom', { topology, shards: 6, ...props });
  return { objects: Testing.synth(chart), chart };
}
export const prometheuses = (objects: any[]) => objects.filter((o) => o.kind === 'Prometheus');
export const shardConfig = (objects: any[], name: string) => yaml.parse(only(objects, 'ConfigMap', name).data['prometheus.yml']);
