/**
 * The zone-shift reconciler: while a ZoneShift holds (cluster-wide), every node of its zone carries the NoSchedule
 * taint `cdk8s-zones.dev/zone-shift=<zone>` (new pods go elsewhere; nothing running is evicted); once it expires or
 * is deleted, the taint goes, unless another shift of the zone holds it. Its status lists what it changes now: the
 * tainted nodes, and the pods its readiness gate holds out (the zone annotator writes that gate; the Redis manager
 * and ZoneAwareUpdate read the shifts themselves). With `--shift-karpenter-node-pools`, every Karpenter NodePool
 * leaves the zones shifted cluster-wide out of its requirements meanwhile, given back exactly after
 * (zone-shift-node-pools.ts). A finalizer keeps a deleted shift until it is undone. Every
 * decision reads the cluster as it is, so a controller restarted mid-shift decides the same.
 * docs/runbooks/zone-impaired.md.
 */
import { patchStatus, statusHolds } from './status';
import { ANNOTATOR_POD_SHAPE } from './zone-annotation-decision';
import { nodeTaints, nodeZone, shiftChanges, shiftStatus, shiftUndone, ShiftWorld } from './zone-shift-decision';
import { ZONE_SHIFT, ZONE_SHIFT_RULES } from '../../../src/contract/reconcilers';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import {
  nextShiftExpiry, outOfServiceZones, shiftInForce, ZONE_SHIFT_FINALIZER, ZoneShiftStatus,
} from '../../../src/contract/zone-shift';
import { nodePoolShiftPatch, NODE_POOL_SHIFT_ANNOTATION } from '../../../src/contract/zone-shift-node-pools';
import { defineReconciler } from '../define-reconciler';
import { isStatus, KubeObject, resourcePath } from '../kube/api';
import { slimPod, slimTaintedNode } from '../kube/transforms';
import { ReconcileResult } from '../reconcile-loop';
import { Reconciler, ReconcilerContext } from '../reconciler';
import { Caches, inputsChanged, shiftsWatch, Watches } from '../watches';
import { zoneGateCondition } from './zone-gate-decision';
import { ShiftExpiryGauge } from './zone-shift-metrics';
import { NODE_POOLS, NODES, PODS, ZONE_SHIFTS } from '../resources';

const NAME = ZONE_SHIFT;
/** A safety net while a deleted shift waits for its undoing: the watches requeue it first. */
const UNDO_RECHECK_MS = 2_000;
/** After a node patch that lost to a newer version of the node: long enough for the cache to see it. */
const CONFLICT_RECHECK_MS = 200;

export function zoneShifter(): Reconciler {
  return defineReconciler({
    name: NAME,
    summary: 'take a zone out of service while a ZoneShift holds: taint its nodes NoSchedule, report what it changes',
    rbac: ZONE_SHIFT_RULES,
    settings: (run) => ({ topologyKeys: run.topologyKeys, nodePools: run.shiftKarpenterNodePools ?? false }),
    declare: (ctx, { topologyKeys, nodePools }, caches: Caches<ShiftWatch>) => {
      const shifts = new ZoneShifts(ctx, caches, ctx.log.with({ reconciler: NAME }), nodePools);
      return {
        watches: zoneShiftWatches(nodePools),
        reconcile: (key) => shifts.reconcile(key),
        loop: { concurrency: 4 },
        startedFields: { topologyKeys, karpenterNodePools: nodePools },
      };
    },
  });
}

type ShiftWatch = 'shifts' | 'nodes' | 'pods' | 'nodePools';
const SHIFT = 'shift/';
const NODE = 'node/';
const NODE_POOL = 'nodepool/';

/**
 * A node as the reconciler needs it: labels (its zone), taints, and the resourceVersion its patch is conditional
 * on.
 */
/** What a shift's status shows of a gated pod: its gate's status, and why the fail-safe keeps it. */
const gateShown = (pod: KubeObject) => {
  const gate = zoneGateCondition(pod);
  return `${gate?.status}/${gate?.reason}/${gate?.message}`;
};

/** What the decisions read of a node: its labels and taints (a status heartbeat changes neither). */
const nodeInputs = (node: KubeObject) => JSON.stringify([node.metadata.labels, node.spec?.taints]);

/** A NodePool as the reconciler needs it: its requirements, the shift's record, its resourceVersion. */
const slimNodePool = (pool: KubeObject): KubeObject => ({
  metadata: {
    name: pool.metadata.name,
    resourceVersion: pool.metadata.resourceVersion,
    annotations: pool.metadata.annotations?.[NODE_POOL_SHIFT_ANNOTATION] === undefined ? undefined
      : { [NODE_POOL_SHIFT_ANNOTATION]: pool.metadata.annotations[NODE_POOL_SHIFT_ANNOTATION] },
  },
  spec: { template: { spec: { requirements: pool.spec?.template?.spec?.requirements } } },
});

/**
 * What it watches: a shift's change concerns it, every node and every NodePool; a node's change of labels or
 * taints, itself and every shift; a NodePool's change, itself and every shift; a gated pod's change of its gate (or
 * of why the fail-safe keeps it), every shift. NodePools only with `nodePools` (Karpenter's CRD may be absent).
 */
export function zoneShiftWatches(nodePools = false): Watches<ShiftWatch> {
  const shiftKeys = (c: Caches<ShiftWatch>) => c.list('shifts').map((s) => SHIFT + s.metadata.name);
  const nodeKeys = (c: Caches<ShiftWatch>) => c.list('nodes').map((n) => NODE + n.metadata.name);
  const poolKeys = (c: Caches<ShiftWatch>) => (nodePools ? c.list('nodePools').map((p) => NODE_POOL + p.metadata.name) : []);
  const pools: Partial<Watches<ShiftWatch>> = !nodePools ? {} : {
    nodePools: {
      resource: NODE_POOLS,
      transform: slimNodePool,
      keys: ({ obj }, c) => [NODE_POOL + obj.metadata.name, ...shiftKeys(c)],
    },
  };
  return {
    ...pools,
    shifts: {
      ...shiftsWatch<ShiftWatch>(({ obj }, c) => [SHIFT + obj.metadata.name, ...nodeKeys(c), ...poolKeys(c)]),
      primary: true,
    },
    nodes: {
      resource: NODES,
      transform: slimTaintedNode,
      keys: (change, c) => {
        if (!inputsChanged(change, nodeInputs)) return [];
        return [NODE + change.obj.metadata.name, ...shiftKeys(c)];
      },
    },
    pods: {
      resource: PODS,
      labelSelector: `${ZoneAnnotation.OPT_IN_LABEL}=${ZoneAnnotation.OPT_IN_VALUE}`,
      transform: (pod) => slimPod(pod, ANNOTATOR_POD_SHAPE),
      keys: (change, c) => (inputsChanged(change, gateShown) ? shiftKeys(c) : []),
    },
  };
}

class ZoneShifts {
  private readonly expiry: ShiftExpiryGauge;

  constructor(
    private readonly ctx: ReconcilerContext,
    private readonly caches: Caches<ShiftWatch>,
    private readonly log: ReconcilerContext['log'],
    private readonly nodePools: boolean,
  ) {
    this.expiry = new ShiftExpiryGauge(ctx.metrics.zoneShiftExpiry);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    if (key.startsWith(NODE)) return this.node(key.slice(NODE.length));
    if (key.startsWith(NODE_POOL)) return this.nodePool(key.slice(NODE_POOL.length));
    return this.shift(key.slice(SHIFT.length));
  }

  /** Leaves the zones shifted cluster-wide out of the NodePool, or gives it back what it had (conditional write). */
  private async nodePool(name: string): Promise<ReconcileResult> {
    const pool = this.caches.get('nodePools', name);
    if (!pool) return {};
    const shifted = [...outOfServiceZones(this.caches.list('shifts'), undefined, Date.now())];
    const patch = nodePoolShiftPatch(pool, shifted, this.ctx.settings.topologyKeys[0]);
    if (!patch) return {};
    try {
      const conditional = { ...patch, metadata: { ...patch.metadata, resourceVersion: pool.metadata.resourceVersion } };
      await this.ctx.kube.patch(resourcePath(NODE_POOLS, undefined, name), conditional);
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
      return { requeueAfter: CONFLICT_RECHECK_MS };
    }
    this.log.info('node pool requirements', { nodePool: name, shifted, requirements: patch.spec.template.spec.requirements });
    return {};
  }

  /** Adds or removes the shift taint, conditional on the node's resourceVersion (a conflict is retried). */
  private async node(name: string): Promise<ReconcileResult> {
    const node = this.caches.get('nodes', name);
    if (!node) return {};
    const now = Date.now();
    const shifts = this.caches.list('shifts');
    const taints = nodeTaints(node, shifts, this.ctx.settings.topologyKeys, now);
    if (taints) {
      const patch = { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints } };
      try {
        await this.ctx.kube.patch(resourcePath(NODES, undefined, name), patch);
      } catch (err) {
        // the cache had not seen the node's last change yet (our own patch, a kubelet's): decide again on the newer one
        if (!isStatus(err, 409)) throw err;
        this.log.debug('node changed meanwhile, deciding again', { node: name });
        return { requeueAfter: CONFLICT_RECHECK_MS };
      }
      this.log.info('node taints', { node: name, zone: nodeZone(node, this.ctx.settings.topologyKeys), taints });
    }
    return {};
  }

  private async shift(name: string): Promise<ReconcileResult> {
    const shift = this.caches.get('shifts', name);
    const now = Date.now();
    this.expiry.show(name, shift, now);
    if (!shift) return {};
    const keys = this.ctx.settings.topologyKeys;
    const world: ShiftWorld = {
      nodes: this.caches.list('nodes'),
      pods: this.caches.list('pods'),
      nodePools: this.nodePools ? this.caches.list('nodePools') : [],
      zoneOfPod: (pod: KubeObject) => {
        const node = pod.spec?.nodeName ? this.caches.get('nodes', pod.spec.nodeName) : undefined;
        return node ? nodeZone(node, keys) : undefined;
      },
      topologyKeys: keys,
    };
    const finalizers = shift.metadata.finalizers ?? [];
    if (shift.metadata.deletionTimestamp) {
      const inForce = this.caches.list('shifts').filter((s) => shiftInForce(s, now) !== undefined);
      if (!finalizers.includes(ZONE_SHIFT_FINALIZER)) return {};
      if (!shiftUndone(shift, inForce, world, now)) return { requeueAfter: UNDO_RECHECK_MS };
      await this.setFinalizers(shift, finalizers.filter((f) => f !== ZONE_SHIFT_FINALIZER));
      this.log.info('zone shift cancelled and undone', { shift: name, zone: shift.spec?.zone });
      return {};
    }
    if (!finalizers.includes(ZONE_SHIFT_FINALIZER)) {
      await this.setFinalizers(shift, [...finalizers, ZONE_SHIFT_FINALIZER]);
    }
    const status: ZoneShiftStatus = shiftStatus(shift, shiftChanges(shift, world), shift.status, now);
    if (!statusHolds(shift.status, status) && await patchStatus(this.ctx.kube, ZONE_SHIFTS, shift, status)) {
      this.log.info('zone shift', { shift: name, phase: status.phase, message: status.message, changed: status.changed.length });
    }
    // its end: the status turns Ended, and that change undoes it (the nodes' and pods' reconcilers read it)
    const expiry = nextShiftExpiry([shift], now);
    return expiry === undefined ? {} : { requeueAfter: Math.max(0, expiry - now) };
  }

  /** Replaces the finalizer list, conditional on the resourceVersion (a merge patch replaces lists whole). */
  private async setFinalizers(shift: KubeObject, finalizers: string[]): Promise<void> {
    try {
      const patch = { metadata: { resourceVersion: shift.metadata.resourceVersion, finalizers } };
      await this.ctx.kube.patch(resourcePath(ZONE_SHIFTS, undefined, shift.metadata.name), patch);
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
  }
}


