/** The valid values and charts the bad-input audit (bad-input.test.ts) starts from before it varies them. */
import { Chart, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { k8s } from 'cdk8s-plus-28';
import * as lib from '../src';

export const topology = () => new lib.ZoneTopology({ zones: ['a', 'b', 'c'] });
/** The Redis password Secret key a ZonalRedisCluster requires. */
export const PW: lib.RedisPasswordSecret = { name: 'redis-auth', key: 'password' };
const quantity = (q: string) => k8s.Quantity.fromString(q);
export const resources = () => ({
  requests: { cpu: quantity('100m'), memory: quantity('128Mi') },
  limits: { memory: quantity('256Mi') },
});
export const inventory = () => new lib.LonghornInventory(INVENTORY);
export const INVENTORY: lib.LonghornInventoryProps = {
  nodes: ['a', 'b', 'c'].map((zone) => ({
    name: `n-${zone}`,
    zone,
    tags: ['fast'],
    allowScheduling: true,
    disks: [{
      name: 'd1',
      capacity: Size.tebibytes(1),
      available: Size.gibibytes(900),
      reserved: Size.gibibytes(10),
      scheduled: Size.kibibytes(0),
      diskType: lib.LonghornDiskType.FILESYSTEM,
      tags: ['ssd'],
      allowScheduling: true,
    }],
  })),
};
export const SCHEDULING: lib.LonghornReplicaScheduling = {
  numberOfReplicas: 3,
  replicaSoftAntiAffinity: lib.AntiAffinity.DISABLED,
  replicaZoneSoftAntiAffinity: lib.AntiAffinity.DISABLED,
  replicaDiskSoftAntiAffinity: lib.AntiAffinity.ENABLED,
  diskSelector: ['ssd'],
  nodeSelector: ['fast'],
  dataLocality: lib.LonghornDataLocality.DISABLED,
  replicaAutoBalance: lib.LonghornReplicaAutoBalance.DISABLED,
  dataEngine: lib.LonghornDataEngine.V1,
  settings: {
    replicaSoftAntiAffinity: lib.AntiAffinity.DISABLED,
    replicaZoneSoftAntiAffinity: lib.AntiAffinity.ENABLED,
    replicaDiskSoftAntiAffinity: lib.AntiAffinity.ENABLED,
    storageOverProvisioningPercentage: 100,
    storageMinimalAvailablePercentage: 25,
    replicaAutoBalance: lib.LonghornReplicaAutoBalance.DISABLED,
    defaultReplicaCount: 3,
    defaultDataLocality: lib.LonghornDataLocality.DISABLED,
    allowEmptyNodeSelectorVolume: true,
    allowEmptyDiskSelectorVolume: true,
    storageReservedPercentageForDefaultDisk: 30,
  },
};
export const RULE: lib.RelabelRule = {
  sourceLabels: ['__address__'],
  separator: ';',
  targetLabel: 'x',
  regex: '(.*)',
  modulus: 3,
  replacement: '$1',
  action: lib.RelabelAction.HASHMOD,
};

/**
 * A chart in an app whose platform chart runs the controller with every feature (the constructs' requirement),
 * serving the chart's namespace.
 */
export function chart(): Chart {
  const app = Testing.app();
  const controller = new lib.ZoneController(new Chart(app, 'platform'), 'controller', {
    redisManager: true,
    zoneAwareUpdate: true,
    zoneDisruptionBudget: true,
    zoneShift: true,
    lostZoneRecovery: true,
    webhookTls: lib.WebhookTls.selfManaged(),
    workloadNamespaces: ['apps'],
  });
  const made = new Chart(app, 'test', { namespace: 'apps' });
  CONTROLLER.set(made, controller);
  return made;
}
/** The controller of each chart() (the constructs name it in their `controller` prop). */
export const CONTROLLER = new WeakMap<Chart, lib.ZoneController>();
/** A chart() and its controller. */
export function chartAndController(): [Chart, lib.ZoneController] {
  const c = chart();
  return [c, CONTROLLER.get(c)!];
}
export const synth = (scope: Chart) => Testing.synth(scope);
export const statefulSet = (scope: Chart) => new kplus.StatefulSet(scope, 'db', {
  strategy: kplus.StatefulSetUpdateStrategy.onDelete(), containers: [{ image: 'postgres:17', portNumber: 5432 }],
});
export const deployment = (scope: Chart) => new kplus.Deployment(scope, 'web', {
  containers: [{ image: 'nginx', portNumber: 8080 }],
});

/**
 * One callable of the public API: valid arguments (fresh on every call), and how to call it (synthesizing,
 * so synth-time checks run too). Constructs list [scope, id, props]; only props are varied. `vary`: the
 * parameters to vary (by default the props of a construct, or every parameter); `offset`: where they start in
 * `args`.
 */
export interface Call {
  args: () => unknown[];
  call: (args: any[]) => unknown;
  vary?: number[];
  offset?: number;
}
