/**
 * What the check reads besides a workload's own replicas: the autoscaler that owns its count
 * (HorizontalPodAutoscaler, KEDA ScaledObject), and whether its pods run to completion (Job, CronJob).
 */
import { ZoneInventory, ZoneReport } from '../../src';

const ZONE_KEY = 'topology.kubernetes.io/zone';
const inventory = ZoneInventory.equalNodes(['a', 'b', 'c'], 2);
const check = (...objects: any[]) => ZoneReport.analyze(objects, inventory);
const rules = (w: { findings: { rule: string }[] }) => w.findings.map((f) => f.rule).sort();

const spread = (app: string) => ({
  topologySpreadConstraints: [{
    topologyKey: ZONE_KEY,
    maxSkew: 1,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app } },
  }],
});
function deployment(name: string, replicas: number | undefined, pod: any = {}, namespace?: string): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }], ...pod } },
    },
  };
}
const hpa = (target: string, spec: any, namespace?: string, apiVersion = 'autoscaling/v2') => ({
  apiVersion,
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: `${target}-hpa`, ...(namespace ? { namespace } : {}) },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, maxReplicas: 10, ...spec },
});
const scaledObject = (target: string, spec: any = {}) => ({
  apiVersion: 'keda.sh/v1alpha1',
  kind: 'ScaledObject',
  metadata: { name: `${target}-so` },
  spec: { scaleTargetRef: { name: target }, triggers: [{ type: 'cpu', metadata: { value: '50' } }], ...spec },
});
const pdb = (app: string, minAvailable: number) => ({
  apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: `${app}-pdb` }, spec: { minAvailable, selector: { matchLabels: { app } } },
});

describe('autoscalers', () => {
  test('replicas omitted, an HPA with minReplicas 3 and a PDB of minAvailable 2: 3 replicas, 1 per zone, survives; the count says where it came from', () => {
    const w = check(deployment('web', undefined, spread('web')), hpa('web', { minReplicas: 3 }), pdb('web', 2)).workloads[0];
    expect(w).toMatchObject({ replicas: 3, needed: 2, survives: { a: true, b: true, c: true } });
    expect(w.replicasFrom).toBe('HorizontalPodAutoscaler web-hpa: minReplicas 3 (replicas unset)');
    expect(rules(w)).toEqual([]);
  });

  test('the HPA may scale the manifest\'s replicas down to its minimum: checked at the minimum', () => {
    const w = check(deployment('web', 5, spread('web')), hpa('web', { minReplicas: 1 })).workloads[0];
    expect(w).toMatchObject({ replicas: 1, survives: { a: false } });
    expect(w.findings.find((f) => f.rule === 'single-replica')!.message)
      .toBe('it has one replica (HorizontalPodAutoscaler web-hpa: minReplicas 1 (replicas 5 in the manifest, which it may scale down)): losing its zone loses it');
  });

  test('an HPA raises replicas below its minimum; minReplicas defaults to 1; autoscaling/v1 too', () => {
    expect(check(deployment('web', 1, spread('web')), hpa('web', { minReplicas: 4 })).workloads[0].replicasFrom)
      .toBe('HorizontalPodAutoscaler web-hpa: minReplicas 4 (replicas 1 in the manifest, which it raises)');
    expect(check(deployment('web', 3), hpa('web', {}, undefined, 'autoscaling/v1')).workloads[0])
      .toMatchObject({ replicas: 1, replicasFrom: 'HorizontalPodAutoscaler web-hpa: minReplicas 1 (its default) (replicas 3 in the manifest, which it may scale down)' });
  });

  test('an HPA targets its own namespace and kind only', () => {
    const otherNamespace = hpa('web', { minReplicas: 1 }, 'other');
    const otherKind = {
      ...hpa('web', { minReplicas: 1 }, 'shop'),
      spec: { scaleTargetRef: { kind: 'StatefulSet', name: 'web' }, minReplicas: 1, maxReplicas: 3 },
    };
    const r = check(deployment('web', 3, spread('web'), 'shop'), otherNamespace, otherKind);
    expect(r.workloads[0]).toMatchObject({ replicas: 3 });
    expect(r.workloads[0].replicasFrom).toBeUndefined();
  });

  test('a KEDA ScaledObject: minReplicaCount, which defaults to 0 (scaled to zero, nothing to lose)', () => {
    expect(check(deployment('worker', 1, spread('worker')), scaledObject('worker', { minReplicaCount: 2 })).workloads[0])
      .toMatchObject({ replicas: 2, replicasFrom: 'ScaledObject worker-so: minReplicaCount 2 (replicas 1 in the manifest, which it raises)', survives: { a: true } });
    expect(check(deployment('worker', 2, spread('worker')), scaledObject('worker')).workloads[0])
      .toMatchObject({ replicas: 0, needed: 0, survives: { a: true, b: true, c: true } });
  });

  test.each([
    [hpa('web', { minReplicas: -1 }), 'HorizontalPodAutoscaler web-hpa has minReplicas -1, not a whole number: not checked'],
    [{ ...hpa('web', {}), spec: { maxReplicas: 3 } }, 'HorizontalPodAutoscaler web-hpa has no spec.scaleTargetRef.name: not checked'],
    [scaledObject('web', { minReplicaCount: 'two' }), 'ScaledObject web-so has minReplicaCount "two", not a whole number: not checked'],
  ])('a malformed autoscaler is skipped, naming it: %#', (autoscaler, message) => {
    const r = check(deployment('web', 3, spread('web')), autoscaler);
    expect(r.data.findings.map((f) => f.message)).toEqual([message]);
    expect(r.workloads[0].replicas).toBe(3);
  });
});

describe('run-to-completion workloads', () => {
  const job = (name: string, meta: any = {}, pod: any = {}) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ...meta },
    spec: {
      template: {
        metadata: { labels: { app: name } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }], ...pod },
      },
    },
  });
  const cronJob = (name: string) => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name },
    spec: {
      schedule: '0 * * * *',
      jobTemplate: {
        spec: {
          parallelism: 2,
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        },
      },
    },
  });

  test('a one-pod Job (a Helm hook, an install Job): no error, an info note, survives', () => {
    const w = check(job('migrate', { annotations: { 'helm.sh/hook': 'pre-install' } })).workloads[0];
    expect(w).toMatchObject({ kind: 'Job', replicas: 1, needed: 0, survives: { a: true, b: true, c: true } });
    expect(w.findings.map((f) => [f.rule, f.severity])).toEqual([['run-to-completion', 'info']]);
  });

  test('a CronJob: its Job template\'s pods, parallelism as replicas, judged like a Job', () => {
    const w = check(cronJob('backup')).workloads[0];
    expect(w).toMatchObject({ kind: 'CronJob', replicas: 2, needed: 0, survives: { a: true } });
    expect(rules(w)).toEqual(['run-to-completion']);
  });

  test('a Job that cannot be placed: info notes, no error', () => {
    const w = check(job('j', {}, { nodeSelector: { disk: 'nvme' } })).workloads[0];
    expect(w.findings.map((f) => [f.rule, f.severity]).sort()).toEqual([['pending', 'info'], ['run-to-completion', 'info'], ['zone-unusable', 'info']]);
  });

  test('a Job that asks to be judged (the quorum annotation) is', () => {
    const w = check(job('j', { annotations: { 'cdk8s-zones.dev/quorum': '1' } })).workloads[0];
    expect(w).toMatchObject({ needed: 1, survives: { a: false } });
    expect(rules(w)).toEqual(['single-replica', 'zone-loss']);
  });

  test('a CronJob without a job template is skipped, naming it', () => {
    const r = check({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '* * * * *' } });
    expect(r.data.findings.map((f) => f.message)).toEqual(['CronJob c has no pod template: not checked']);
  });
});

describe('bare Pods', () => {
  const pod = (restartPolicy?: string, annotations?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'p' }, ...(annotations ? { annotations } : {}) },
    spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'c', image: 'x' }] },
  });

  test('a Helm test Pod (restartPolicy Never) runs to completion: an info note', () => {
    const w = check(pod('Never', { 'helm.sh/hook': 'test' })).workloads[0];
    expect(w).toMatchObject({ kind: 'Pod', replicas: 1, needed: 0, survives: { a: true } });
    expect(rules(w)).toEqual(['run-to-completion']);
  });

  test('a Pod that is restarted (restartPolicy Always, the default) is one replica nothing replaces', () => {
    const w = check(pod()).workloads[0];
    expect(w).toMatchObject({ kind: 'Pod', replicas: 1, survives: { a: false } });
    expect(rules(w)).toEqual(['single-replica', 'zone-loss']);
  });
});
