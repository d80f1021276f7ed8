/**
 * Applying examples to the test cluster for real: synthesize `examples/<name>/main.ts` in-process (its
 * exported `build(app)`), install the CRDs its custom resources need (its own, else the upstream ones in
 * ../shared/crds, found by group and kind) and wait until they are Established, then server-side apply
 * everything else with strict field validation, namespaced objects into a namespace that enforces Pod
 * Security "restricted". Every rejection and every API server warning is collected, never swallowed.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import * as yaml from 'yaml';
import { sharedCrds } from '../crd-schema';
import { REPO_ROOT } from '../shared';
import { KubeApiError, KubeClient, KubeObject } from './kube-client';
import { WaitAborted, waitFor, WaitOptions } from './wait';
import { REDIS_PASSWORD_VOLUME } from '../../../src/contract/redis';
import { REPLICAS_ANNOTATION } from '../../../src/contract/zone-check';
import { ExampleVariant, STANDARD_VARIANT } from '../../example-variants';

const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');
const CRD = 'CustomResourceDefinition';
/** Field manager of the namespace labels the tests add (kept apart from the objects the examples own). */
const NAMESPACE_MANAGER = 'cdk8s-zones-test-namespace';

/** The examples: every examples/<name>/ with a main.ts, sorted. */
export function exampleNames(): string[] {
  return fs.readdirSync(EXAMPLES_DIR).filter((n) => fs.existsSync(path.join(EXAMPLES_DIR, n, 'main.ts'))).sort();
}

/** The objects `cdk8s synth` writes for an example (in a variant), in the same order, without touching the disk. */
export function synthesizeExample(name: string, variant: ExampleVariant = STANDARD_VARIANT): KubeObject[] {
  const main = path.join(EXAMPLES_DIR, name, 'main.ts');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(main);
  if (typeof mod.build !== 'function') throw new Error(`${path.relative(REPO_ROOT, main)} does not export build(app: App)`);
  const app = new App({ outdir: path.join(REPO_ROOT, '.cache', 'k8s', 'synth', name) });
  mod.build(app, variant.zones);
  return yaml.parseAllDocuments(app.synthYaml()).map((d) => d.toJS()).filter(Boolean);
}

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
}

function describe(obj: KubeObject): string {
  return `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`;
}

/** The Pod Security level a test namespace enforces: the library's own output is always held to restricted. */
export type PodSecurityLevel = 'restricted' | 'privileged';

/** The labels that make a namespace enforce (and warn and audit) Pod Security "restricted", latest version. */
export const RESTRICTED_LABELS: Record<string, string> = Object.fromEntries(['enforce', 'warn', 'audit'].flatMap((mode) => [
  [`pod-security.kubernetes.io/${mode}`, 'restricted'],
  [`pod-security.kubernetes.io/${mode}-version`, 'latest'],
]));

/**
 * Creates (or labels) a namespace that enforces Pod Security "restricted" and waits for its `default`
 * ServiceAccount (pods are refused until the controller-manager has made it).
 */
export async function restrictedNamespace(
  client: KubeClient,
  name: string,
  opts: WaitOptions = {},
  podSecurity: PodSecurityLevel = 'restricted',
): Promise<void> {
  const labels = podSecurity === 'restricted' ? RESTRICTED_LABELS : { 'pod-security.kubernetes.io/enforce': 'privileged' };
  await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }, NAMESPACE_MANAGER);
  await waitFor(`the default ServiceAccount of namespace ${name}`,
    async () => ({ done: !!(await client.find('v1', 'ServiceAccount', 'default', name)) }), opts);
}

/**
 * Deletes a namespace and waits until it and everything in it are gone. Its pods are removed at once
 * (no kubelet has anything to stop; a terminating namespace admits no new ones).
 */
export async function deleteNamespace(client: KubeClient, name: string, opts: WaitOptions = {}): Promise<void> {
  await client.delete('v1', 'Namespace', name);
  await client.deleteCollection('v1', 'Pod', name, { gracePeriodSeconds: 0 }).catch((err) => {
    if (!(err instanceof KubeApiError && err.status === 404)) throw err;
  });
  await waitFor(`namespace ${name} to be deleted`, async () => ({ done: !(await client.find('v1', 'Namespace', name)) }), opts);
}

/** Waits until the API server serves each of the CRDs. */
async function waitEstablished(client: KubeClient, crds: readonly KubeObject[], opts: WaitOptions = {}): Promise<void> {
  for (const crd of crds) {
    await waitFor(`CRD ${crd.metadata.name} to be Established`, async () => {
      const conditions: any[] = (await client.get('apiextensions.k8s.io/v1', CRD, crd.metadata.name) as any).status?.conditions ?? [];
      return { done: conditions.some((c) => c.type === 'Established' && c.status === 'True'), state: JSON.stringify(conditions) };
    }, opts);
    // Discovery lists a new kind a moment after its CRD is Established: wait for it there too.
    for (const version of (crd.spec.versions as any[]).filter((v) => v.served)) {
      const apiVersion = `${crd.spec.group}/${version.name}`;
      const kind = crd.spec.names.kind;
      await waitFor(`${apiVersion} ${kind} in discovery`, async () => ({ done: await client.serves(apiVersion, kind) }), opts);
    }
  }
}

/**
 * The CRDs that objects need and the API server does not serve yet: from `own` (CRDs the example itself
 * synthesizes) first, else from ../shared/crds, matched by group and kind. Throws for a kind nobody defines.
 */
async function missingCrds(
  client: KubeClient,
  objects: readonly KubeObject[],
  own: readonly KubeObject[] = [],
): Promise<KubeObject[]> {
  const needed = new Map<string, KubeObject>();
  let shared: KubeObject[] | undefined;
  for (const obj of objects) {
    const key = `${groupOf(obj.apiVersion)}/${obj.kind}`;
    if (needed.has(key) || await client.serves(obj.apiVersion, obj.kind)) continue;
    const defines = (crd: KubeObject) => crd.spec.group === groupOf(obj.apiVersion) && crd.spec.names.kind === obj.kind;
    const crd = own.find(defines) ?? (shared ??= sharedCrds()).find(defines);
    if (!crd) throw new Error(`${describe(obj)}: no CRD for ${obj.apiVersion} ${obj.kind} in the example or in ../shared/crds`);
    needed.set(key, crd);
  }
  return [...needed.values()];
}

export interface ApplyResult {
  /** The objects as the API server stored them, in apply order. */
  readonly applied: KubeObject[];
  /** "<Kind> <ns>/<name>: <status> <reason>: <message>" for every object the API server refused. */
  readonly rejections: string[];
  /** "<Kind> <ns>/<name>: <warning>" for every API server warning (PodSecurity "would violate", ...). */
  readonly warnings: string[];
  /** The CRDs applied for these objects (names): their own, and the upstream ones the API server lacked. */
  readonly crds: string[];
  /** Warnings about the upstream CRDs of ../shared/crds: about that test data, not about what we synthesize. */
  readonly upstreamCrdWarnings: string[];
  /** Every namespace the objects are in (each made to enforce "restricted"), sorted. */
  readonly namespaces: string[];
}

/**
 * Applies manifests the way a GitOps tool would: CRDs first (theirs and the upstream ones they need),
 * then namespaces, cluster-scoped objects, and namespaced objects (into `namespace` unless they name one).
 * Every namespace used is made to enforce "restricted" (or `podSecurity`: real charts from elsewhere need more).
 * Never throws for a refused object: see `rejections`.
 */
export async function applyManifests(
  client: KubeClient, objects: readonly KubeObject[], namespace: string, podSecurity: PodSecurityLevel = 'restricted',
): Promise<ApplyResult> {
  const result: ApplyResult = {
    applied: [],
    rejections: [],
    warnings: [],
    crds: [],
    upstreamCrdWarnings: [],
    namespaces: [],
  };
  const apply = async (obj: KubeObject, warnings = result.warnings): Promise<boolean> => {
    try {
      const res = await client.apply(obj);
      warnings.push(...res.warnings.map((w) => `${describe(obj)}: ${w}`));
      if (obj.kind === CRD) result.crds.push(obj.metadata.name); else result.applied.push(res.body);
      return true;
    } catch (err) {
      if (!(err instanceof KubeApiError)) throw err;
      result.rejections.push(`${describe(obj)}: ${err.status} ${err.reason}: ${err.detail}`);
      return false;
    }
  };

  const own = objects.filter((o) => o.kind === CRD);
  const rest = objects.filter((o) => o.kind !== CRD);
  const installed: KubeObject[] = [];
  for (const crd of own) if (await apply(crd)) installed.push(crd);
  for (const crd of await missingCrds(client, rest, own)) {
    if (await apply(crd, result.upstreamCrdWarnings)) installed.push(crd);
  }
  await waitEstablished(client, installed);

  const scoped: { obj: KubeObject; rank: number }[] = [];
  for (const o of rest) {
    const { namespaced } = await client.resource(o.apiVersion, o.kind).catch((err) => {
      throw new Error(`${describe(o)}: ${err.message}${result.rejections.length ? ` (rejected: ${result.rejections.join('; ')})` : ''}`);
    });
    const obj = namespaced ? { ...o, metadata: { ...o.metadata, namespace: o.metadata.namespace ?? namespace } } : o;
    scoped.push({ obj, rank: o.kind === 'Namespace' ? 0 : namespaced ? 2 : 1 });
  }
  const ordered = scoped.sort((a, b) => a.rank - b.rank).map((s) => s.obj); // stable: synth order within a rank

  const namespaces = new Set<string>();
  for (const obj of ordered) {
    const ns = obj.kind === 'Namespace' ? obj.metadata.name : obj.metadata.namespace;
    if (obj.kind !== 'Namespace' && ns && !namespaces.has(ns)) await restrictedNamespace(client, ns, {}, podSecurity);
    await apply(obj);
    // The example's own Namespace: labelled after it is applied (by another field manager), so it enforces
    // "restricted" too.
    if (obj.kind === 'Namespace') await restrictedNamespace(client, ns!, {}, podSecurity);
    if (ns) namespaces.add(ns);
  }
  result.namespaces.push(...[...namespaces].sort());
  return result;
}

/**
 * Deletes what `applyManifests` made, CRDs excepted: its cluster-scoped objects and every namespace it
 * used (waiting until they are gone), so the next example starts from a clean cluster.
 */
export async function deleteApplied(client: KubeClient, result: ApplyResult): Promise<void> {
  for (const obj of [...result.applied].reverse()) {
    if (!obj.metadata.namespace && obj.kind !== 'Namespace') await client.delete(obj.apiVersion, obj.kind, obj.metadata.name);
  }
  await Promise.all(result.namespaces.map((ns) => deleteNamespace(client, ns)));
}

/**
 * The Secrets that workloads among `objects` mount as their Redis password and that `objects` do not hold:
 * a GitOps repository must never hold them, so an operator creates them out of band (here: with a random
 * password), before the pods can start. One per namespace and name, with every key mounted.
 */
export function operatorSecrets(objects: readonly KubeObject[]): KubeObject[] {
  const own = new Set(objects.filter((o) => o.kind === 'Secret').map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`));
  const secrets = new Map<string, KubeObject>();
  for (const w of objects.filter((o) => WORKLOADS.has(o.kind))) {
    const volume = (w.spec.template.spec.volumes ?? []).find((v: any) => v.name === REDIS_PASSWORD_VOLUME)?.secret;
    const id = `${w.metadata.namespace ?? ''}/${volume?.secretName}`;
    if (!volume || own.has(id)) continue;
    const secret = secrets.get(id) ?? {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: volume.secretName, namespace: w.metadata.namespace },
      stringData: {},
    };
    for (const item of volume.items) secret.stringData[item.key] = randomBytes(24).toString('base64url');
    secrets.set(id, secret);
  }
  return [...secrets.values()];
}

/**
 * Synthesizes an example and applies it (see `applyManifests`) with the Secrets an operator would have
 * created (`operatorSecrets`); `transform` may alter the objects first.
 */
export async function applyExample(
  client: KubeClient, name: string, namespace: string, transform: (objects: KubeObject[]) => KubeObject[] = (o) => o,
  variant: ExampleVariant = STANDARD_VARIANT,
): Promise<ApplyResult> {
  const objects = transform(synthesizeExample(name, variant));
  return applyManifests(client, [...operatorSecrets(objects), ...objects], namespace);
}

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);

function rolledOut(w: any): boolean {
  const s = w.status ?? {};
  if (w.kind === 'Job') return (s.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True');
  if ((s.observedGeneration ?? 0) < w.metadata.generation) return false;
  if (w.kind === 'DaemonSet') return s.numberReady === s.desiredNumberScheduled;
  const want = w.spec.replicas ?? 1;
  return (s.readyReplicas ?? 0) === want && (w.kind !== 'Deployment' || (s.updatedReplicas ?? 0) === want);
}

/**
 * Waits until every workload among `applied` has all its pods admitted, scheduled and Ready (kwok makes
 * scheduled pods Ready; a Job's pods complete). Fails at once when a controller reports that it could not
 * create a pod (a rejection, e.g. by PodSecurity), and on timeout names the pods still Pending and why.
 */
export async function waitForRollout(
  client: KubeClient,
  applied: readonly KubeObject[],
  opts: WaitOptions = {},
): Promise<void> {
  const workloads = applied.filter((o) => WORKLOADS.has(o.kind));
  const namespaces = [...new Set(workloads.map((w) => w.metadata.namespace!))];
  await waitFor(`${workloads.map(describe).join(', ')} to roll out`, async () => {
    for (const ns of namespaces) {
      // One line per workload and reason, not one per refused pod.
      const failed = (await client.list('v1', 'Event', { namespace: ns, fieldSelector: 'reason=FailedCreate' }))
        .map((e: any) => `${e.involvedObject.kind} ${ns}/${e.involvedObject.name}: ${e.message.replace(/pods "[^"]+"/, 'pods')}`);
      if (failed.length) throw new RolloutRejected([...new Set(failed)]);
    }
    const current = await Promise.all(workloads.map((w) => {
      const { name, namespace } = w.metadata;
      return client.get(w.apiVersion, w.kind, name, namespace);
    }));
    const waiting = current.filter((w) => !rolledOut(w));
    if (waiting.length === 0) return { done: true };
    const pendingIn = (ns: string) => client.list('v1', 'Pod', { namespace: ns, fieldSelector: 'status.phase=Pending' });
    const whyNotScheduled = (p: any) =>
      (p.status?.conditions ?? []).find((c: any) => c.type === 'PodScheduled')?.message ?? 'not scheduled yet';
    const pending = (await Promise.all(namespaces.map(pendingIn)))
      .flat()
      .map((p: any) => `${p.metadata.name}: ${whyNotScheduled(p)}`);
    return { done: false, state: `waiting for ${waiting.map(describe).join(', ')}; pending pods: ${pending.join('; ') || 'none'}` };
  }, { timeoutMs: 300_000, ...opts });
}

/** A controller could not create pods: the API server refused them. */
export class RolloutRejected extends WaitAborted {
  constructor(readonly failures: string[]) {
    super(`pods were rejected: ${failures.join('; ')}`);
  }
}

/** The kinds whose pods `plainExampleObjects` keeps. */
export const PLAIN_WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job'];

/**
 * An example's plain workloads, budgets and service accounts, without their namespace (examples name their own,
 * and several share cdk8s-zones-system), with `nodeSelector` added to every pod (a test's node pool). A workload
 * whose controller owns its replicas (the Redis manager; REPLICAS_ANNOTATION) gets them as that controller would
 * scale it, since none runs here. No operator runs in the tier, so custom resources are left out.
 */
export function plainExampleObjects(name: string, nodeSelector: Record<string, string> = {}): KubeObject[] {
  return synthesizeExample(name)
    .filter((o) => [...PLAIN_WORKLOAD_KINDS, 'PodDisruptionBudget', 'ServiceAccount'].includes(o.kind))
    .map((o) => {
      const copy = structuredClone(o);
      delete copy.metadata.namespace;
      if (!PLAIN_WORKLOAD_KINDS.includes(o.kind)) return copy;
      copy.spec.template.spec.nodeSelector = { ...copy.spec.template.spec.nodeSelector, ...nodeSelector };
      const scaledTo = o.metadata.annotations?.[REPLICAS_ANNOTATION];
      if (copy.spec.replicas === undefined && scaledTo !== undefined) copy.spec.replicas = Number(scaledTo);
      return copy;
    });
}
