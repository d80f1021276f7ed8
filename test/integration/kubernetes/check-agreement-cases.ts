/**
 * check-agreement's cases: the corpus files, the real charts' built-in workloads and every example's plain
 * workloads.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as yaml from 'yaml';
import { POOL_KEY } from './check-agreement-pools';
import { exampleNames, plainExampleObjects } from './examples';
import { KubeObject } from './kube-client';
import { parseManifests } from '../../../src/check/manifest-text';
import { WorkloadReport } from '../../../src/check/model';
import { REAL_CORPUS, realCorpusFiles } from '../../check/real-corpus-files';

const CORPUS_DIR = path.join(__dirname, 'check-corpus');
export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet', 'Job'];

export interface Case {
  readonly id: string;
  readonly objects: KubeObject[];
  readonly reports: WorkloadReport[];
  /** Real charts run privileged pods (host ports, host paths): their namespaces enforce nothing. */
  readonly privileged?: boolean;
}

export function corpusCases(): Case[] {
  return fs.readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.yaml')).sort().map((f) => {
    const text = fs.readFileSync(path.join(CORPUS_DIR, f), 'utf8');
    const objects = yaml.parseAllDocuments(text).map((d) => d.toJS()).filter(Boolean);
    return { id: f, objects, reports: [] };
  });
}

/**
 * The real charts of test/check/real-corpus, one case per file: their built-in workloads and budgets, on the
 * `real` pool. What needs the rest of a real cluster is taken out of both what is applied and what is checked,
 * so the two see the same objects: namespaces (one per case), custom resources and autoscalers (no operator or
 * metrics run here), priority classes, runtime classes, schedulers and service accounts that do not exist here,
 * host ports (the files share the pool's nodes; one workload's own are modelled), volumes (no provisioner:
 * each becomes an emptyDir), a Job's ttlSecondsAfterFinished (a deleted Job cannot be observed) and long
 * termination grace periods (up to 900 s in these charts: a drained pod would stay Terminating past the test's
 * waits).
 */
/** The pod fields of a real chart that need the rest of a real cluster (see `realCorpusCases`). */
const REAL_POD_FIELDS_DROPPED = [
  'priorityClassName',
  'runtimeClassName',
  'schedulerName',
  'serviceAccountName',
  'serviceAccount',
  'hostNetwork',
  'terminationGracePeriodSeconds',
];

export function realCorpusCases(): Case[] {
  const dir = REAL_CORPUS;
  const files = realCorpusFiles();
  return files.map((file) => {
    const objects = parseManifests(file, fs.readFileSync(file, 'utf8')).map((o) => o.value as KubeObject)
      .filter((o) => [...WORKLOAD_KINDS, 'PodDisruptionBudget'].includes(o.kind))
      .map((o) => {
        const copy = structuredClone(o);
        delete copy.metadata.namespace;
        // a chart may still render v1beta1, which 1.25+ no longer serves
        if (o.kind === 'PodDisruptionBudget') copy.apiVersion = 'policy/v1';
        if (!WORKLOAD_KINDS.includes(o.kind)) return copy;
        delete copy.spec.ttlSecondsAfterFinished; // a Job the TTL controller deletes cannot be observed
        const pod = copy.spec.template.spec;
        pod.nodeSelector = { ...pod.nodeSelector, [POOL_KEY]: 'real' };
        for (const f of REAL_POD_FIELDS_DROPPED) delete pod[f];
        for (const c of [...pod.containers ?? [], ...pod.initContainers ?? []]) {
          for (const p of c.ports ?? []) delete p.hostPort;
        }
        const claims: any[] = copy.spec.volumeClaimTemplates ?? [];
        delete copy.spec.volumeClaimTemplates;
        const emptyDir = (name: string) => ({ name, emptyDir: {} });
        pod.volumes = [
          ...(pod.volumes ?? []).map((v: any) => (v.persistentVolumeClaim || v.ephemeral ? emptyDir(v.name) : v)),
          ...claims.map((t) => emptyDir(t.metadata.name)),
        ];
        return copy;
      });
    return { id: `real ${path.relative(dir, file)}`, objects, reports: [], privileged: true };
  }).filter((c) => c.objects.some((o) => WORKLOAD_KINDS.includes(o.kind)));
}

/**
 * Every example's plain workloads, budgets and service accounts on the examples pool (examples.ts,
 * `plainExampleObjects`).
 */
export function exampleCases(): Case[] {
  return exampleNames().flatMap((name) => {
    const objects = plainExampleObjects(name, { [POOL_KEY]: 'examples' });
    const hasWorkload = objects.some((o) => WORKLOAD_KINDS.includes(o.kind));
    return hasWorkload ? [{ id: `example ${name}`, objects, reports: [] }] : [];
  });
}

