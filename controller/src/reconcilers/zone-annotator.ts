/**
 * The zone annotator: every pod that opted in (label `cdk8s-zones.dev/zone-annotation=enabled`) gets, once
 * bound, the annotation `cdk8s-zones.dev/zone` with its node's topology label values, so a container can
 * read its zone through the downward API (`wait-for-zone` in an init container). A node without the
 * label gets a Warning Event on the pod and counts in `cdk8s_zones_nodes_missing_zone_label`; the pod is
 * decided again as soon as the node's labels change. Its watches also count, per workload and zone, the pods and
 * how many are Ready (zone-readiness-metrics.ts).
 */
import {
  ANNOTATOR_POD_SHAPE, boundAt, decideZoneAnnotation, decisionInputsChanged, GATED_POD_SHAPE,
} from './zone-annotation-decision';
import { decideZoneGate, hasZoneGate, zoneGatePatch } from './zone-gate-decision';
import { ReadinessFeed, readinessFeed, ZoneReadinessGauges } from './zone-readiness-metrics';
import { ZONE_ANNOTATOR, ZONE_ANNOTATOR_RULES } from '../../../src/contract/reconcilers';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { nextShiftExpiry, outOfServiceZones } from '../../../src/contract/zone-shift';
import { FAIL_SAFE_REASON, failSafeKept, shiftPodOf, shiftServiceOf } from '../../../src/contract/zone-shift-fail-safe';
import { defineReconciler } from '../define-reconciler';
import { isStatus, KubeObject, keyOf, resourcePath } from '../kube/api';
import { byNamespace } from '../kube/informer';
import { slimMeta, slimNode, slimPod } from '../kube/transforms';
import { ReconcileResult } from '../reconcile-loop';
import { DEFAULT_API_CONCURRENCY, Reconciler, ReconcilerContext } from '../reconciler';
import { Caches, Change, shiftsWatch, Watches } from '../watches';
import { nodeZone } from './zone-shift-decision';
import { NODES, PODS, SERVICES } from '../resources';

export const NODE_MISSING_LABEL_REASON = 'NodeMissingTopologyLabel';
export const INVALID_KEYS_REASON = 'InvalidTopologyKeys';
const NAME = ZONE_ANNOTATOR;

export interface ZoneAnnotatorTuning {
  /** Patches in flight at once. @default the run's `--api-concurrency` */
  readonly concurrency?: number;
  /** @default 300_000 */
  readonly resyncMs?: number;
}

/** The annotator's settings: its tuning, and the run's it reads. */
interface AnnotatorSettings {
  readonly concurrency: number;
  readonly resyncMs?: number;
  readonly topologyKeys: readonly string[];
  readonly zoneShifts: boolean;
}

export function zoneAnnotator(tuning: ZoneAnnotatorTuning = {}): Reconciler {
  return defineReconciler({
    name: NAME,
    summary: 'annotate opted-in pods with their node\'s zone (cdk8s-zones.dev/zone)',
    rbac: ZONE_ANNOTATOR_RULES,
    settings: (run): AnnotatorSettings => ({
      concurrency: tuning.concurrency ?? run.apiConcurrency ?? DEFAULT_API_CONCURRENCY,
      resyncMs: tuning.resyncMs,
      topologyKeys: run.topologyKeys,
      zoneShifts: run.zoneShifts ?? false,
    }),
    declare: (ctx, settings, caches: Caches<AnnotatorWatch>) => {
      const waits = new NodeWaits((count) => ctx.metrics.nodesMissingZoneLabel.set(count));
      /** The value patched onto each pod whose watch has not shown it yet: that echo needs no reconcile. */
      const written = new Map<string, string>();
      const annotations = new ZoneAnnotations(ctx, caches, waits, written, ctx.log.with({ reconciler: NAME }));
      const readiness = readinessFeed(new ZoneReadinessGauges(ctx.metrics), settings.topologyKeys);
      return {
        // Pods decided before the nodes are known would all wait: the nodes are a cache, the pods the primary.
        watches: zoneAnnotatorWatches(settings.resyncMs, waits, written, settings.zoneShifts, readiness),
        loop: { concurrency: settings.concurrency },
        reconcile: (key) => annotations.reconcile(key),
        startedFields: { topologyKeys: settings.topologyKeys },
      };
    },
  });
}

/** The watches of the annotator, by name. */
type AnnotatorWatch = 'nodes' | 'pods' | 'shifts' | 'services';

/** The pods waiting on a node (not known yet, or lacking the topology labels), and the nodes lacking them. */
export class NodeWaits {
  private readonly podsByNode = new Map<string, Set<string>>();
  private readonly nodeOfPod = new Map<string, string>();
  private readonly missing = new Set<string>();

  /** `onMissing` gets the count of nodes lacking labels each time it changes. */
  constructor(private readonly onMissing: (count: number) => void = () => undefined) {}

  podsOn(node: string): string[] {
    return [...this.podsByNode.get(node) ?? []];
  }

  wait(node: string, podKey: string): void {
    if (this.nodeOfPod.get(podKey) !== node) this.unwait(podKey);
    if (!this.podsByNode.has(node)) this.podsByNode.set(node, new Set());
    this.podsByNode.get(node)!.add(podKey);
    this.nodeOfPod.set(podKey, node);
  }

  /** The pod waits no more; a node no pod waits on is no longer counted as lacking labels. */
  unwait(podKey: string): void {
    const node = this.nodeOfPod.get(podKey);
    if (node === undefined) return;
    this.nodeOfPod.delete(podKey);
    const pods = this.podsByNode.get(node)!;
    pods.delete(podKey);
    if (pods.size > 0) return;
    this.podsByNode.delete(node);
    if (this.missing.delete(node)) this.onMissing(this.missing.size);
  }

  /** Counts `node` as lacking labels; false when it was already. */
  markMissingLabel(node: string): boolean {
    if (this.missing.has(node)) return false;
    this.missing.add(node);
    this.onMissing(this.missing.size);
    return true;
  }
}

/**
 * Which pod a pod's change concerns: itself (a deleted one too: its reconcile forgets it), unless the change is
 * the echo of the annotation the annotator wrote or leaves what the decision reads unchanged. An echo seen is
 * crossed off `written` (the annotations patched whose echo the watch has not shown yet).
 */
export function annotatorPodKeys({ type, obj: pod, old }: Change, written: Map<string, string>): string[] {
  const podKey = keyOf(pod);
  if (type === 'deleted') return [podKey];
  const echo = written.get(podKey);
  const isEcho = echo !== undefined && pod.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION] === echo;
  if (isEcho) written.delete(podKey);
  if (type === 'modified' && old && !decisionInputsChanged(old, pod, echo)) return [];
  return [podKey];
}

/**
 * What the annotator watches: the opted-in pods, the nodes (a node's change concerns the pods waiting on it), the
 * zonal shifts (their readiness gate) and, for the shift's fail-safe, the Services. Every change of a pod or a node
 * also goes to `readiness`, whatever it enqueues.
 */
export function zoneAnnotatorWatches(
  resyncMs: number | undefined, waits: NodeWaits, written: Map<string, string>, zoneShifts = true,
  readiness?: ReadinessFeed,
): Watches<AnnotatorWatch> {
  return {
    // pods resync; a node matters only through its pods
    nodes: {
      resource: NODES,
      transform: slimNode,
      keys: (change, c) => {
        readiness?.node(change, c);
        return change.type === 'deleted' ? [] : waits.podsOn(change.obj.metadata.name);
      },
    },
    ...(zoneShifts ? shiftWatches() : {}),
    pods: {
      resource: PODS,
      labelSelector: `${ZoneAnnotation.OPT_IN_LABEL}=${ZoneAnnotation.OPT_IN_VALUE}`,
      transform: (pod) => slimPod(pod, zoneShifts ? GATED_POD_SHAPE : ANNOTATOR_POD_SHAPE),
      indexes: { namespace: byNamespace },
      resyncMs,
      primary: true,
      keys: (change, c) => {
        readiness?.pod(change, c);
        return [...annotatorPodKeys(change, written), ...(zoneShifts ? peersToDecide(change, c) : [])];
      },
    },
  };
}

/** The gated pods of a namespace, while a shift holds there: their fail-safe may change. */
function gatedPodsUnderShift(c: Caches<AnnotatorWatch>, namespace: string): string[] {
  if (outOfServiceZones(c.list('shifts'), namespace, Date.now()).size === 0) return [];
  return c.byIndex('pods', 'namespace', namespace).filter(hasZoneGate).map(keyOf);
}

/**
 * A pod that starts or stops being able to serve (bound, Ready containers, deleted) changes what the fail-safe
 * keeps of its namespace's other gated pods.
 */
function peersToDecide({ type, obj, old }: Change, c: Caches<AnnotatorWatch>): string[] {
  const serving = (pod: KubeObject) => shiftPodOf(pod, undefined).serving;
  if (type === 'modified' && old && serving(old) === serving(obj)) return [];
  return gatedPodsUnderShift(c, obj.metadata.namespace ?? '');
}

/** A zonal shift concerns every pod with its readiness gate; a Service, its namespace's gated pods (the fail-safe). */
function shiftWatches(): Partial<Watches<AnnotatorWatch>> {
  return {
    shifts: shiftsWatch<AnnotatorWatch>((_, c) => c.list('pods').filter(hasZoneGate).map(keyOf)),
    services: {
      resource: SERVICES,
      transform: (svc) => ({ metadata: slimMeta(svc.metadata), spec: { selector: svc.spec?.selector } }),
      indexes: { namespace: byNamespace },
      keys: ({ obj }, c) => gatedPodsUnderShift(c, obj.metadata.namespace ?? ''),
    },
  };
}

/** The decision metric's name for a gate written. */
function gateDecisionName(decision: { status: string; reason: string }): string {
  if (decision.status === 'False') return 'zone-shifted';
  return decision.reason === FAIL_SAFE_REASON ? 'zone-shift-fail-safe' : 'zone-in-service';
}

/** Decides and annotates one pod at a time over the caches. */
class ZoneAnnotations {
  constructor(
    private readonly ctx: ReconcilerContext,
    private readonly caches: Caches<AnnotatorWatch>,
    private readonly waits: NodeWaits,
    private readonly written: Map<string, string>,
    private readonly log: ReconcilerContext['log'],
  ) {}

  async reconcile(podKey: string): Promise<ReconcileResult> {
    const pod = this.caches.get('pods', podKey);
    if (!pod) {
      this.waits.unwait(podKey);
      this.written.delete(podKey);
      return {};
    }
    const nodeName: string | undefined = pod.spec?.nodeName;
    const node = nodeName ? this.caches.get('nodes', nodeName) : undefined;
    if (!await this.annotation(pod, podKey, node)) return {};
    return this.gate(pod, podKey, node);
  }

  /** Decides and writes the zone annotation; false when the pod is gone. */
  private async annotation(pod: KubeObject, podKey: string, node: KubeObject | undefined): Promise<boolean> {
    const decision = decideZoneAnnotation(pod, node, this.ctx.settings.topologyKeys);
    if (decision.kind !== 'wait-for-node' && decision.kind !== 'missing-label') this.waits.unwait(podKey);
    switch (decision.kind) {
      case 'skip':
        return true;
      case 'wait-for-node':
        this.waits.wait(decision.node, podKey);
        return true;
      case 'invalid-keys':
        this.ctx.metrics.decisions.inc({ reconciler: NAME, decision: decision.kind });
        await this.ctx.events.record({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', INVALID_KEYS_REASON,
          `annotation ${ZoneAnnotation.KEYS_ANNOTATION}=${JSON.stringify(decision.raw)} names no node label key; give comma-separated keys such as topology.kubernetes.io/zone`);
        return true;
      case 'missing-label':
        this.waits.wait(decision.node, podKey);
        this.waits.markMissingLabel(decision.node);
        this.ctx.metrics.decisions.inc({ reconciler: NAME, decision: decision.kind });
        this.log.warn('node lacks topology labels', { pod: podKey, node: decision.node, missing: decision.missing });
        await this.ctx.events.record({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', NODE_MISSING_LABEL_REASON,
          `node ${decision.node} has no label ${decision.missing.join(', ')}: ${ZoneAnnotation.VALUE_ANNOTATION} is set once the node is labelled`);
        return true;
      case 'annotate': {
        if (!await this.annotate(pod, podKey, decision.value)) return false;
        this.ctx.metrics.decisions.inc({ reconciler: NAME, decision: decision.previous === undefined ? 'annotated' : 'corrected' });
        const bound = boundAt(pod);
        if (bound !== undefined) this.ctx.metrics.annotationLatency.observe(Math.max(0, Date.now() - bound) / 1000);
        this.log.debug('annotated', { pod: podKey, value: decision.value, previous: decision.previous });
        return true;
      }
    }
  }

  /**
   * Decides and writes the zonal shift's readiness gate, in the same pass as the annotation (a new pod waits for
   * nothing more); looks again when the shift that holds it expires.
   */
  private async gate(pod: KubeObject, podKey: string, node: KubeObject | undefined): Promise<ReconcileResult> {
    // the zone as shifts and taints name it: the controller's topology keys, whatever keys the pod's annotation
    // asks for
    const zone = node ? this.zoneOfNode(node) : undefined;
    const now = Date.now();
    const shifts = this.ctx.settings.zoneShifts ? this.caches.list('shifts') : [];
    const outOfService = outOfServiceZones(shifts, pod.metadata.namespace, now);
    const keptBecause = zone !== undefined && outOfService.has(zone) ? this.failSafe(pod, outOfService) : undefined;
    const decision = decideZoneGate(pod, zone, outOfService, keptBecause);
    if (decision.kind === 'set') {
      try {
        const podStatus = resourcePath(PODS, pod.metadata.namespace, pod.metadata.name, 'status');
        await this.ctx.kube.patch(podStatus, zoneGatePatch(decision, now), 'strategic');
      } catch (err) {
        if (isStatus(err, 404)) return {}; // deleted meanwhile
        throw err;
      }
      this.ctx.metrics.decisions.inc({ reconciler: NAME, decision: gateDecisionName(decision) });
      this.log.info('zone gate', { pod: podKey, zone, status: decision.status, reason: decision.reason });
    }
    const expiry = hasZoneGate(pod) ? nextShiftExpiry(shifts, now) : undefined;
    return expiry === undefined ? {} : { requeueAfter: Math.max(0, expiry - now) };
  }

  /** Why the fail-safe keeps `pod` in service (zone-shift-fail-safe.ts), or undefined: it may leave. */
  private failSafe(pod: KubeObject, outOfService: ReadonlySet<string>): string | undefined {
    const namespace = pod.metadata.namespace ?? '';
    const zoneOfPod = (p: KubeObject) => {
      const node = p.spec?.nodeName ? this.caches.get('nodes', p.spec.nodeName) : undefined;
      return node ? this.zoneOfNode(node) : undefined;
    };
    const pods = this.caches.byIndex('pods', 'namespace', namespace).map((p) => shiftPodOf(p, zoneOfPod(p)));
    const services = this.caches.byIndex('services', 'namespace', namespace).map(shiftServiceOf);
    return failSafeKept(pods, services, outOfService).get(keyOf(pod));
  }

  private zoneOfNode(node: KubeObject): string | undefined {
    return nodeZone(node, this.ctx.settings.topologyKeys);
  }

  /** Writes the annotation; false when the pod is gone. */
  private async annotate(pod: KubeObject, podKey: string, value: string): Promise<boolean> {
    this.written.set(podKey, value); // before the request: the watch may show the echo before the answer arrives
    try {
      const patch = { metadata: { annotations: { [ZoneAnnotation.VALUE_ANNOTATION]: value } } };
      await this.ctx.kube.patch(resourcePath(PODS, pod.metadata.namespace, pod.metadata.name), patch);
      return true;
    } catch (err) {
      this.written.delete(podKey);
      if (isStatus(err, 404)) return false; // deleted meanwhile
      throw err;
    }
  }
}

