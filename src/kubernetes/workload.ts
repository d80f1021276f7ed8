/**
 * The Kubernetes workload behind a construct a user hands the library: a cdk8s-plus Deployment, StatefulSet
 * or Job of any cdk8s-plus version (28 to 33: each is a construct whose default child is its ApiObject), or a
 * raw `k8s.KubeDeployment` / `KubeStatefulSet` / `KubeJob` (an ApiObject itself). The library reads and
 * changes the workload only through its ApiObject and its rendered JSON, never through one cdk8s-plus
 * version's API, so every version works the same, and changes made after the library's call are seen.
 */
import { ApiObject, Lazy } from 'cdk8s';
import { IConstruct } from 'constructs';
import { Selector } from './label-selector';
import { Workload } from './objects';
import { describe, invalidProp } from '../shared/errors';

/** What a workload construct is expected to be, for messages. */
const EXPECTED = 'a cdk8s-plus Deployment, StatefulSet or Job (cdk8s-plus-28 to -33) or a raw k8s.KubeDeployment, KubeStatefulSet or KubeJob';

/**
 * The ApiObject of `workload` (prop `prop` of `where`), which must be of one of `kinds`. Throws a clear error
 * for a value that is no construct, a construct with no Kubernetes object, or another kind.
 */
export function workloadApiObject(
  where: string, prop: string, workload: unknown, kinds: readonly string[], hint?: (kind: string) => string,
): ApiObject {
  const node = (workload as IConstruct | undefined)?.node;
  if (typeof workload !== 'object' || workload === null || typeof node?.path !== 'string') {
    throw invalidProp(where, prop, workload, `must be ${EXPECTED}`);
  }
  const api = ApiObject.isApiObject(workload) ? workload : node.defaultChild;
  if (!ApiObject.isApiObject(api)) {
    throw new Error(`${where}: ${prop} '${node.path}' (${describe(workload)}) has no Kubernetes object of its own: it must be ${EXPECTED}`);
  }
  if (!kinds.includes(api.kind)) {
    throw new Error(`${where}: ${prop} '${node.path}' is a ${api.kind}, not one of ${kinds.join(', ')}${hint?.(api.kind) ?? ''}`);
  }
  return api;
}

/**
 * Applies `transform` to what `api` renders, every time it renders (after cdk8s-plus has rendered the
 * workload and its JSON patches are applied). For changes that must compose with what the user adds to the
 * workload later, which a JSON patch recorded now cannot: e.g. a zone requirement added to every required node
 * affinity term. Transforms run in the order they were added; one may throw a synth-time error.
 */
export function transformRendered(api: ApiObject, transform: RenderedTransform): void {
  let transforms = TRANSFORMS.get(api);
  if (!transforms) {
    const list: RenderedTransform[] = [];
    const render = api.toJson.bind(api);
    api.toJson = () => list.reduce((json, t) => t(json), render());
    TRANSFORMS.set(api, list);
    transforms = list;
  }
  transforms.push(transform);
}

const TRANSFORMS = new WeakMap<ApiObject, RenderedTransform[]>();

/** A workload as cdk8s renders it: the fields a transform reads, typed; every other field kept as it is. */
export interface RenderedWorkload extends Workload {
  readonly [field: string]: unknown;
}

/** A change to a rendered workload: a new object (the rendered one is left as it is), or a synth-time error. */
export type RenderedTransform = (json: RenderedWorkload) => RenderedWorkload;

/**
 * The pods' selector of a rendered workload: its `spec.selector`, or (a Job, whose selector Kubernetes
 * generates) its pod template's labels.
 */
export function renderedSelector(json: Workload): Selector {
  if (json.kind === 'Job') return { matchLabels: { ...json.spec?.template?.metadata?.labels } };
  // rendered by cdk8s from a workload's props: a selector of the Kubernetes shape
  return (json.spec?.selector ?? {}) as Selector;
}

/** The rendered workload's pod template labels. */
export function renderedPodLabels(json: Workload): { readonly [key: string]: string } {
  return json.spec?.template?.metadata?.labels ?? {};
}

/** The workload's pod selector as its ApiObject renders it at synthesis (a value for another object's props). */
export function lazySelector(api: ApiObject, check: (selector: Selector) => void): Selector {
  return Lazy.any({
    produce: () => {
      const selector = renderedSelector(api.toJson());
      check(selector);
      return selector;
    },
  });
}
