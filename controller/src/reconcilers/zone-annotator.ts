/**
 * The zone annotator: every pod that opted in (label `cdk8s-zones.dev/zone-annotation=enabled`) gets, once
 * bound, the annotation `cdk8s-zones.dev/zone` with its node's topology label values, so a container can
 * read its zone through the downward API (`wait-for-zone` in an init container). A node without the
 * label gets a Warning Event on the pod and counts in `cdk8s_zones_nodes_missing_zone_label`; the pod is
 * decided again as soon as the node's labels change.
 */
import { ZONE_ANNOTATOR, ZONE_ANNOTATOR_RULES } from '../../../src/contract/reconcilers';
import { ZoneAnnotation } from '../../../src/contract/zone-annotation';
import { isStatus, KubeObject, keyOf, NODES, PODS, resourcePath } from '../kube/api';
import { Informer } from '../kube/informer';
import { slimNode, slimPod } from '../kube/transforms';
import { ReconcileLoop, ReconcileResult } from '../reconcile-loop';
import { DEFAULT_API_CONCURRENCY, Reconciler, ReconcilerContext } from '../reconciler';
import { ANNOTATOR_POD_SHAPE, boundAt, decideZoneAnnotation, decisionInputsChanged } from './zone-annotation-decision';

export const NODE_MISSING_LABEL_REASON = 'NodeMissingTopologyLabel';
export const INVALID_KEYS_REASON = 'InvalidTopologyKeys';
const NAME = ZONE_ANNOTATOR;

export interface ZoneAnnotatorTuning {
  /** Patches in flight at once. @default the run's `--api-concurrency` */
  readonly concurrency?: number;
  /** @default 300_000 */
  readonly resyncMs?: number;
}

export function zoneAnnotator(tuning: ZoneAnnotatorTuning = {}): Reconciler {
  return {
    name: NAME,
    summary: 'annotate opted-in pods with their node\'s zone (cdk8s-zones.dev/zone)',
    rbac: ZONE_ANNOTATOR_RULES,
    run: (ctx, signal) => runZoneAnnotator(ctx, signal, tuning),
  };
}

async function runZoneAnnotator(ctx: ReconcilerContext, signal: AbortSignal, tuning: ZoneAnnotatorTuning): Promise<void> {
  const log = ctx.log.with({ reconciler: NAME });
  /** Pods waiting on a node (unknown, or lacking labels), by node name; and the nodes lacking labels. */
  const waiting = new Map<string, Set<string>>();
  const missingLabel = new Set<string>();
  /** The value patched onto each pod whose watch has not shown it yet: that echo needs no reconcile. */
  const written = new Map<string, string>();
  const updateGauge = () => ctx.metrics.nodesMissingZoneLabel.set(missingLabel.size);
  const wait = (node: string, podKey: string) => {
    if (!waiting.has(node)) waiting.set(node, new Set());
    waiting.get(node)!.add(podKey);
  };
  const unwait = (node: string | undefined, podKey: string) => {
    if (!node) return;
    const pods = waiting.get(node);
    if (!pods?.delete(podKey) || pods.size > 0) return;
    waiting.delete(node);
    if (missingLabel.delete(node)) updateGauge();
  };

  const nodes = new Informer(ctx.kube, {
    path: resourcePath(NODES),
    transform: slimNode,
    resyncMs: 0, // pods resync; a node matters only through its pods
    log,
    onChange: (type, node) => {
      if (type === 'deleted') return;
      for (const podKey of waiting.get(node.metadata.name) ?? []) loop.enqueue(podKey);
    },
  });
  const pods = new Informer(ctx.kube, {
    path: resourcePath(PODS),
    labelSelector: `${ZoneAnnotation.OPT_IN_LABEL}=${ZoneAnnotation.OPT_IN_VALUE}`,
    transform: (pod) => slimPod(pod, ANNOTATOR_POD_SHAPE),
    resyncMs: tuning.resyncMs,
    log,
    onChange: (type, pod, old) => {
      const podKey = keyOf(pod);
      if (type === 'deleted') {
        unwait(pod.spec?.nodeName, podKey);
        written.delete(podKey);
        return;
      }
      const echo = written.get(podKey);
      if (echo !== undefined && pod.metadata.annotations?.[ZoneAnnotation.VALUE_ANNOTATION] === echo) written.delete(podKey);
      if (type === 'modified' && old && !decisionInputsChanged(old, pod, echo)) return;
      loop.enqueue(podKey);
    },
  });

  /** Writes the annotation; false when the pod is gone. */
  const annotate = async (pod: KubeObject, podKey: string, value: string): Promise<boolean> => {
    written.set(podKey, value); // before the request: the watch may show the echo before the answer arrives
    try {
      const patch = { metadata: { annotations: { [ZoneAnnotation.VALUE_ANNOTATION]: value } } };
      await ctx.kube.patch(resourcePath(PODS, pod.metadata.namespace, pod.metadata.name), patch);
      return true;
    } catch (err) {
      written.delete(podKey);
      if (isStatus(err, 404)) return false; // deleted meanwhile
      throw err;
    }
  };

  const reconcile = async (podKey: string): Promise<ReconcileResult> => {
    const pod = pods.get(podKey);
    if (!pod) return {};
    const nodeName: string | undefined = pod.spec?.nodeName;
    const decision = decideZoneAnnotation(pod, nodeName ? nodes.get(nodeName) : undefined, ctx.settings.topologyKeys);
    if (decision.kind !== 'wait-for-node' && decision.kind !== 'missing-label') unwait(nodeName, podKey);
    switch (decision.kind) {
      case 'skip':
        return {};
      case 'wait-for-node':
        wait(decision.node, podKey);
        return {};
      case 'invalid-keys':
        ctx.metrics.decisions.inc({ reconciler: NAME, decision: decision.kind });
        await ctx.events.record({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', INVALID_KEYS_REASON,
          `annotation ${ZoneAnnotation.KEYS_ANNOTATION}=${JSON.stringify(decision.raw)} names no node label key; give comma-separated keys such as topology.kubernetes.io/zone`);
        return {};
      case 'missing-label': {
        wait(decision.node, podKey);
        if (!missingLabel.has(decision.node)) {
          missingLabel.add(decision.node);
          updateGauge();
        }
        ctx.metrics.decisions.inc({ reconciler: NAME, decision: decision.kind });
        log.warn('node lacks topology labels', { pod: podKey, node: decision.node, missing: decision.missing });
        await ctx.events.record({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', NODE_MISSING_LABEL_REASON,
          `node ${decision.node} has no label ${decision.missing.join(', ')}: ${ZoneAnnotation.VALUE_ANNOTATION} is set once the node is labelled`);
        return {};
      }
      case 'annotate': {
        if (!await annotate(pod, podKey, decision.value)) return {};
        ctx.metrics.decisions.inc({ reconciler: NAME, decision: decision.previous === undefined ? 'annotated' : 'corrected' });
        const bound = boundAt(pod);
        if (bound !== undefined) ctx.metrics.annotationLatency.observe(Math.max(0, Date.now() - bound) / 1000);
        log.debug('annotated', { pod: podKey, value: decision.value, previous: decision.previous });
        return {};
      }
    }
  };

  const concurrency = tuning.concurrency ?? ctx.settings.apiConcurrency ?? DEFAULT_API_CONCURRENCY;
  const loop = new ReconcileLoop(ctx, { name: NAME, reconcile, concurrency });
  // Pods decided before the nodes are known would all wait.
  await loop.run(signal, { caches: [nodes], primaries: [pods], startedFields: { topologyKeys: ctx.settings.topologyKeys } });
}
