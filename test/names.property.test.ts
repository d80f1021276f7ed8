/**
 * Property: for any valid zone names (label values with upper case, '_', '.', up to 63 characters), any
 * construct ids (up to 100 characters of anything but '/') and valid props, every object name, namespace and
 * label that every public construct synthesizes is one Kubernetes accepts (test/kubernetes-validity.ts).
 */
import { App, Chart, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import * as fc from 'fast-check';
import * as lib from '../src';
import { kubernetesProblems } from './kubernetes-validity';

// Short and long ones alike (fast-check favours short strings): the long ones are what overflow names.
const zoneName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/),
  fc.stringMatching(/^[A-Za-z0-9][-A-Za-z0-9_.]{40,61}[A-Za-z0-9]$/),
);
/** Three or four distinct zones that a ZoneTopology accepts (two zones may not share an object-name slug). */
const zones = fc.uniqueArray(zoneName, { minLength: 3, maxLength: 4 }).filter((z) => {
  try {
    new lib.ZoneTopology({ zones: z });
    return true;
  } catch {
    return false;
  }
});
const idUnit = fc.constantFrom(...'aZ09_.- é\u03a9xQ'.split(''));
const id = fc.oneof(
  fc.string({ minLength: 1, maxLength: 100, unit: idUnit }),
  fc.string({ minLength: 80, maxLength: 100, unit: idUnit }),
);
/** `n` distinct ids (siblings in one chart may not share one). */
const ids = (n: number) => fc.uniqueArray(id, { minLength: n, maxLength: n });

/** Our constructs in a chart named by a random id; the user's cdk8s-plus workloads, if any, in a chart of their own. */
interface World {
  readonly app: App;
  readonly chart: Chart;
  readonly workloads: Chart;
  readonly topology: lib.ZoneTopology;
}

function world(zoneNames: string[], chartId: string): World {
  const app = Testing.app();
  // A namespace: the controller is granted its rights in the namespaces of the workloads it serves.
  const namespace = 'apps';
  return {
    app,
    chart: new Chart(app, chartId, { namespace }),
    workloads: new Chart(app, 'workloads', { namespace }),
    topology: new lib.ZoneTopology({ zones: zoneNames }),
  };
}

function check(w: World): void {
  const objects = w.app.charts.flatMap((c) => Testing.synth(c));
  expect(kubernetesProblems(objects)).toEqual([]);
}

const RUNS = { numRuns: 40 };

test('ZonalRedisCluster, with the ZoneController that manages it', () => {
  const masterCounts = fc.constantFrom(3, 5, 6, 7);
  const replicaCounts = fc.integer({ min: 1, max: 2 });
  const withWebhook = fc.boolean();
  fc.assert(fc.property(zones, id, ids(2), masterCounts, replicaCounts, withWebhook,
    (z, chartId, [redisId, controllerId], masters, rpm, zdb) => {
      const w = world(z, chartId);
      const controller = new lib.ZoneController(w.chart, controllerId, zdb
        ? {
          redisManager: true,
          zoneDisruptionBudget: true,
          webhookTls: lib.WebhookTls.selfManaged(),
          topology: w.topology,
        }
        : { redisManager: true, zoneAnnotator: false });
      fc.pre(Math.ceil(masters / z.length) <= Math.floor((masters - 1) / 2));
      new lib.ZonalRedisCluster(w.chart, redisId, {
        controller,
        topology: w.topology,
        masters,
        replicasPerMaster: rpm,
        storage: { size: Size.gibibytes(1) },
        password: { name: 'redis-auth', key: 'password' },
      });
      check(w);
    }), RUNS);
});

test('ZoneAwareLokiStack, both outputs and every zone source', () => {
  fc.assert(fc.property(zones, id, id.filter((i) => i !== 'controller'), fc.constantFrom(...Object.values(lib.LokiStackSize)),
    fc.constantFrom('operator', 'per-zone', 'labels', 'controller'), (z, chartId, lokiId, size, kind) => {
      const w = world(z, chartId);
      if (kind === 'operator') {
        new lib.ZoneAwareLokiStack(w.chart, lokiId, {
          topology: w.topology,
          operator: {
            size,
            objectStorage: { secretName: 's3', type: lib.LokiObjectStorageType.S3 },
            storageClassName: 'gp3',
          },
        });
      } else {
        const source = kind === 'per-zone' ? lib.ZoneSource.perZoneStatefulSets()
          : kind === 'labels' ? lib.ZoneSource.podTopologyLabels()
            : lib.ZoneSource.controller(new lib.ZoneController(w.chart, 'controller'));
        new lib.ZoneAwareLokiStack(w.chart, lokiId, {
          topology: w.topology,
          direct: { zoneSource: source, gateway: true, ruler: true, objectStorage: { bucket: 'logs' } },
        });
      }
      check(w);
    }), RUNS);
});

test('TopologyShardedPrometheus, every output and sharding', () => {
  fc.assert(fc.property(zones, id, id, fc.integer({ min: 4, max: 9 }), fc.constantFrom('per-zone', 'strategy', 'standalone', 'address'),
    (z, chartId, promId, shards, kind) => {
      const w = world(z, chartId);
      new lib.TopologyShardedPrometheus(w.chart, promId, {
        topology: w.topology,
        shards,
        namespace: 'monitoring',
        mode: kind === 'address' ? lib.ShardingMode.ADDRESS : lib.ShardingMode.TOPOLOGY,
        output: kind === 'standalone' || kind === 'address' ? lib.PrometheusOutput.STANDALONE : lib.PrometheusOutput.OPERATOR,
        operatorSharding: kind === 'strategy' ? lib.OperatorSharding.SHARDING_STRATEGY : undefined,
        replicas: 2,
      });
      check(w);
    }), RUNS);
});

test('ZoneController, ZoneAwareUpdate, ZoneDisruptionBudget', () => {
  fc.assert(fc.property(zones, id, ids(3), (z, chartId, [controllerId, updateId, budgetId]) => {
    const w = world(z, chartId);
    const controller = new lib.ZoneController(w.chart, controllerId, {
      topology: w.topology, zoneAwareUpdate: true, zoneDisruptionBudget: true, webhookTls: lib.WebhookTls.certManager(),
    });
    const db = new kplus.StatefulSet(w.workloads, 'db', {
      strategy: kplus.StatefulSetUpdateStrategy.onDelete(), containers: [{ image: 'postgres:17', portNumber: 5432 }],
    });
    const target = lib.RolloutTarget.statefulSetName(db.name);
    new lib.ZoneAwareUpdate(w.chart, updateId, { controller, target, maxUnavailable: 1 });
    new lib.ZoneDisruptionBudget(w.chart, budgetId, { controller, selector: db.matchLabels, maxUnavailable: '50%' });
    lib.Zonal.spread(db, { topology: w.topology });
    check(w);
  }), RUNS);
});

test('Longhorn StorageClass, Volume and Settings', () => {
  fc.assert(fc.property(zones, id, ids(3), (z, chartId, [classId, volumeId, settingsId]) => {
    const w = world(z, chartId);
    const inventory = new lib.LonghornInventory({
      nodes: z.map((zone, i) => ({ name: `node-${i}`, zone, disks: [{ name: 'd', capacity: Size.tebibytes(1) }] })),
    });
    const settings = new lib.LonghornSettings(w.chart, settingsId, {
      replicaZoneSoftAntiAffinity: lib.AntiAffinity.DISABLED,
    });
    new lib.LonghornStorageClass(w.chart, classId, { numberOfReplicas: 3, inventory, settings: settings.scheduling });
    new lib.LonghornVolume(w.chart, volumeId, {
      size: Size.gibibytes(10),
      numberOfReplicas: 3,
      inventory,
      settings: settings.scheduling,
    });
    check(w);
  }), RUNS);
});
