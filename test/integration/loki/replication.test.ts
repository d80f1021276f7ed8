/**
 * The real-Loki proof: the Loki configuration the library generates, for 3 zones with replication
 * factor 3, run as real processes (distributor, 2 ingesters per zone, querier; memberlist ring on
 * 127.0.0.1; filesystem storage). Every ingester of one zone is killed (SIGKILL, as a zone outage does:
 * no flush, no leaving the ring). With zone awareness every pushed line is still returned and new pushes
 * succeed; the same cluster with zone awareness disabled fails, which is the difference the config makes.
 */
import { HEARTBEAT, LokiCluster } from './loki-cluster';
import { waitFor } from '../processes';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const STREAMS = 60;
const SELECTOR = '{proof="zones"}';

/** One line per stream, each stream a distinct label set (so their replicas land on different ingesters). */
function lines(round: string, base: bigint): { stream: { [label: string]: string }; nanos: bigint; line: string }[] {
  return Array.from({ length: STREAMS }, (_, i) => ({
    stream: { proof: 'zones', stream: `s${String(i).padStart(2, '0')}` },
    nanos: base + BigInt(i),
    line: `${round} line ${i}`,
  }));
}

async function pushAll(cluster: LokiCluster, round: string, base: bigint): Promise<{ ok: string[]; failed: string[] }> {
  const ok: string[] = [];
  const failed: string[] = [];
  for (const l of lines(round, base)) {
    const res = await cluster.push(l.stream, l.nanos, l.line);
    (res.status === 204 ? ok : failed).push(res.status === 204 ? l.line : `${l.line}: HTTP ${res.status} ${res.body.trim()}`);
  }
  return { ok, failed };
}

async function killZone(cluster: LokiCluster, zone: string): Promise<void> {
  await Promise.all(cluster.ingesters(zone).map((p) => p.kill()));
}

/** Waits until the querier's ring shows the killed zone's ingesters as unhealthy (heartbeat timed out). */
async function waitUntilZoneUnhealthy(cluster: LokiCluster, zone: string): Promise<void> {
  await new Promise((r) => setTimeout(r, (HEARTBEAT.timeoutSeconds + 2) * 1000));
  await waitFor(`the ring to show ${zone}'s ingesters as unhealthy`, 30_000, async () => {
    const res = await fetch(`${cluster.querier.url}/ring`);
    return (await res.text()).includes('UNHEALTHY') ? true : undefined;
  });
}

const now = () => BigInt(Date.now()) * 1_000_000n;

describe('Loki with the generated config, 3 zones, replication factor 3, 2 ingesters per zone', () => {
  let cluster: LokiCluster;
  afterEach(async () => {
    await cluster?.stop();
  });

  test('zone awareness on: with every ingester of one zone down, every pushed line is returned and new pushes succeed', async () => {
    cluster = await LokiCluster.start({ zones: ZONES, ingestersPerZone: 2, replicationFactor: 3, zoneAwareness: true });
    // The running Loki took the generated settings (after its own common-section rewriting).
    const config = await cluster.config(cluster.ingesters('zone-b')[0]);
    expect(config).toMatch(/zone_awareness_enabled: true/);
    expect(config).toMatch(/replication_factor: 3/);
    // Each ingester registered in its own zone, whether told by flag (zone-a) or environment (zone-b, zone-c).
    const ring = await cluster.ring(cluster.distributor);
    expect(ring.map((m) => [m.id, m.zone]).sort()).toEqual(cluster.ingesters().map((p) => [p.name, p.zone]).sort());

    const start = now();
    const before = await pushAll(cluster, 'before', start);
    expect(before.failed).toEqual([]);
    expect(await cluster.query(SELECTOR, start, now())).toEqual([...before.ok].sort());

    await killZone(cluster, 'zone-a');
    // Right after the outage (the dead ingesters still look healthy in the ring) ...
    const during = await pushAll(cluster, 'during', now());
    expect(during.failed).toEqual([]);
    expect(await cluster.query(SELECTOR, start, now())).toEqual([...before.ok, ...during.ok].sort());

    // ... and once the ring has marked them unhealthy.
    await waitUntilZoneUnhealthy(cluster, 'zone-a');
    const after = await pushAll(cluster, 'after', now());
    expect(after.failed).toEqual([]);
    const all = [...before.ok, ...during.ok, ...after.ok];
    expect(await cluster.query(SELECTOR, start, now())).toEqual(all.sort());
    console.log(`zone awareness on, zone-a down: ${all.length} of ${3 * STREAMS} pushes accepted, all ${all.length} lines returned`);
  });

  test('zone awareness off (same processes, same RF): one zone down loses reads and writes', async () => {
    cluster = await LokiCluster.start({ zones: ZONES, ingestersPerZone: 2, replicationFactor: 3, zoneAwareness: false });
    expect(await cluster.config(cluster.ingesters('zone-b')[0])).toMatch(/zone_awareness_enabled: false/);

    const start = now();
    const before = await pushAll(cluster, 'before', start);
    expect(before.failed).toEqual([]);
    expect(await cluster.query(SELECTOR, start, now())).toEqual([...before.ok].sort());

    await killZone(cluster, 'zone-a');
    await waitUntilZoneUnhealthy(cluster, 'zone-a');
    // Without zone awareness a stream's 3 replicas may sit on both ingesters of the lost zone, and the
    // read path tolerates only floor(RF/2) = 1 lost ingester, not a whole zone of 2.
    const queryError = await cluster.query(SELECTOR, start, now()).then(() => undefined, (err: Error) => err.message);
    expect(queryError).toMatch(/HTTP 500: too many unhealthy instances in the ring/);
    const after = await pushAll(cluster, 'after', now());
    // Streams with 2 of their 3 replicas in the lost zone (how many depends on the random ring tokens) can no longer be written.
    console.log(`zone awareness off, zone-a down: ${after.failed.length} of ${STREAMS} streams refused writes`);
    expect(after.failed.length).toBeGreaterThan(0);
    for (const f of after.failed) expect(f).toMatch(/HTTP 500 at least 2 live replicas required, could only find 1/);
  });
});
