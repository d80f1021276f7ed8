/**
 * The zone-local Prometheus shards in the traffic report (src/check/traffic/scrape-traffic.ts): the construct's
 * shards, pinned to the zone they scrape, cross nothing but their targets of no known zone; a shard whose pods may
 * run elsewhere is reported; the controller's Service, whose clients are outside the zones, gets no share.
 */
import { Testing } from 'cdk8s';
import { TopologyShardedPrometheus, ZoneController, ZoneInventory, ZoneTopology } from '../../../src';
import { analyzeTraffic } from '../../../src/check/traffic/analyze-traffic';
import { formatTrafficText } from '../../../src/check/traffic/format-traffic';
import { readManifests } from '../../../src/check/workloads';
import { SCRAPES_UNZONED_ANNOTATION, SCRAPES_ZONE_ANNOTATION } from '../../../src/contract/traffic';
import { PrometheusOutput } from '../../../src/prometheus/options';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const inventory = ZoneInventory.equalNodes(ZONES, 3);
const traffic = (objects: any[]) => analyzeTraffic(readManifests(objects, inventory.topologyKey), inventory);

describe.each([PrometheusOutput.STANDALONE, PrometheusOutput.OPERATOR])('TopologyShardedPrometheus, %s output', (output) => {
  const chart = Testing.chart();
  const topology = new ZoneTopology({ zones: ZONES });
  new TopologyShardedPrometheus(chart, 'prom', { topology, output, shards: 3, namespace: 'monitoring' });
  const data = traffic(Testing.synth(chart));

  test('one shard per zone, each scraping its own zone from it: 0% crossing; the first zone\'s also scrapes the unzoned targets', () => {
    expect(data.scrapes.map((s) => [s.zone, s.crossZoneShare.worst, s.unzonedTargets])).toEqual([
      ['zone-a', 0, true], ['zone-b', 0, false], ['zone-c', 0, false],
    ]);
    for (const s of data.scrapes) {
      expect(Object.entries(s.replicasPerZone).filter(([, c]) => c.worstCase > 0).map(([z]) => z)).toEqual([s.zone]);
    }
    expect(data.scrapes[0].findings.map((f) => f.rule)).toEqual(['unzoned-targets-scraped']);
    expect(formatTrafficText(data)).toContain('Zone-local Prometheus shards:');
  });
});

test('a shard marked as scraping zone-a whose pods may run in any zone: the share of its replicas that may be elsewhere crosses', () => {
  const shard = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'prom-a', annotations: { [SCRAPES_ZONE_ANNOTATION]: 'zone-a', [SCRAPES_UNZONED_ANNOTATION]: 'false' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'prom-a' } },
      template: { metadata: { labels: { app: 'prom-a' } }, spec: { containers: [{ name: 'p', image: 'prom' }] } },
    },
  };
  const [s] = traffic([shard]).scrapes;
  expect(s).toMatchObject({ zone: 'zone-a', unzonedTargets: false, crossZoneShare: { worst: 1 } });
  expect(s.findings.map((f) => f.rule)).toEqual(['scrape-crosses-zones']);
  expect(s.findings[0].message).toContain('2 of its 2 replicas may run in another zone');
});

test('the ZoneController\'s Service: its clients are outside the zones, so the report shows its endpoints and no share', () => {
  const chart = Testing.chart();
  new ZoneController(chart, 'controller', { namespace: 'ops', image: 'registry.example/controller:1' });
  const [s] = traffic(Testing.synth(chart)).services;
  expect(s).toMatchObject({ name: expect.any(String), clients: 'outside the zones', findings: [] });
  expect(s.crossZoneShare).toBeUndefined();
  expect(Object.values(s.endpointsPerZone).some((c) => c.worstCase > 0)).toBe(true);
});
