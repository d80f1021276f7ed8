/**
 * Just enough of the Kubernetes API, over HTTPS, to measure the zone annotator without a control plane's
 * noise: list and watch of nodes and pods (label selectors of `key=value` terms, watches resumed from a
 * resourceVersion), merge patches of pods answered after a fixed delay (the patch round trip), and Events
 * accepted. Pods arrive at a steady rate: each is created (ADDED, unbound), then bound to a node
 * (MODIFIED), as the ReplicaSet controller and the scheduler do; the server records when each pod was
 * bound and when the patch that annotated it was answered. Pods look like those of a real cluster
 * (managedFields, a container, status), about 5 KiB of JSON each, so the client parses what it would.
 */
import * as https from 'https';
import { AddressInfo } from 'net';
import { performance } from 'perf_hooks';
import { ZoneAnnotation } from '../src/contract/zone-annotation';

export interface FakeNodeSpec {
  readonly name: string;
  readonly zone: string;
}

export interface FakeApiServerOptions {
  /** The serving certificate and key (PEM), for 127.0.0.1. */
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  readonly nodes: readonly FakeNodeSpec[];
  /** How long the server takes to answer a PATCH of a pod. */
  readonly patchDelayMs: number;
  /** Between a pod's creation and its binding. @default 20 */
  readonly bindAfterMs?: number;
}

interface Obj {
  metadata: {
    name: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: any;
  };
  [k: string]: any;
}

interface Watcher {
  readonly plural: string;
  readonly matches: (obj: Obj) => boolean;
  readonly res: import('http').ServerResponse;
}

const NAMESPACE = 'bench';
const PATH = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?(pods|nodes|events)(?:\/([^/?]+))?(?:\?(.*))?$/;

/** `a=b,c=d` label selectors (all this benchmark's clients send). */
function selector(raw: string | null): (obj: Obj) => boolean {
  const terms = (raw ?? '').split(',').filter((t) => t !== '').map((t) => t.split('='));
  return (obj) => terms.every(([k, v]) => obj.metadata.labels?.[k] === v);
}

/** A pod as the API server returns it: owner, managedFields, one container, the status a running pod has. */
function podJson(name: string, rv: number, nodeName?: string): Obj {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: `00000000-0000-4000-8000-${name.padStart(12, '0').slice(-12)}`,
      resourceVersion: String(rv),
      generateName: 'latency-7d9c5b6f4-',
      creationTimestamp: now,
      labels: { 'app': 'latency', 'pod-template-hash': '7d9c5b6f4', [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'latency-7d9c5b6f4', uid: '11111111-2222-4333-8444-555555555555', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: now,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, 'k:{"uid":"11111111-2222-4333-8444-555555555555"}': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"pause"}': {
                  '.': {},
                  'f:image': {},
                  'f:imagePullPolicy': {},
                  'f:name': {},
                  'f:resources': { '.': {}, 'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} } },
                  'f:securityContext': {
                    '.': {},
                    'f:allowPrivilegeEscalation': {},
                    'f:capabilities': { '.': {}, 'f:drop': {} },
                    'f:runAsNonRoot': {},
                  },
                  'f:terminationMessagePath': {},
                  'f:terminationMessagePolicy': {},
                },
              },
              'f:dnsPolicy': {},
              'f:enableServiceLinks': {},
              'f:restartPolicy': {},
              'f:schedulerName': {},
              'f:securityContext': { '.': {}, 'f:seccompProfile': { '.': {}, 'f:type': {} } },
              'f:terminationGracePeriodSeconds': {},
            },
          },
        },
        {
          manager: 'kwok',
          operation: 'Update',
          apiVersion: 'v1',
          time: now,
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: {
            'f:status': {
              'f:conditions': {
                'k:{"type":"ContainersReady"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} },
                'k:{"type":"Initialized"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} },
                'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} },
              },
              'f:containerStatuses': {},
              'f:hostIP': {},
              'f:phase': {},
              'f:podIP': {},
              'f:podIPs': { '.': {}, 'k:{"ip":"10.0.0.1"}': { '.': {}, 'f:ip': {} } },
              'f:startTime': {},
            },
          },
        },
      ],
    },
    spec: {
      containers: [{
        name: 'pause',
        image: 'registry.k8s.io/pause:3.10',
        imagePullPolicy: 'IfNotPresent',
        resources: { requests: { cpu: '10m', memory: '16Mi' } },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        volumeMounts: [{ name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
      }],
      volumes: [{
        name: 'kube-api-access-abcde',
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      ...(nodeName ? { nodeName } : {}),
    },
    status: nodeName
      ? {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }],
        qosClass: 'Burstable',
      }
      : { phase: 'Pending', qosClass: 'Burstable' },
  };
}

export class FakeApiServer {
  static async start(opts: FakeApiServerOptions): Promise<FakeApiServer> {
    const server = new FakeApiServer(opts);
    await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  /**
   * When each pod was bound (its MODIFIED event written) and its annotating PATCH answered, in performance.now() ms.
   */
  readonly bound = new Map<string, number>();
  readonly annotated = new Map<string, number>();
  /** PATCHes of pods answered. */
  patches = 0;
  private rv = 1;
  private readonly objects = { pods: new Map<string, Obj>(), nodes: new Map<string, Obj>() };
  /** Every change, in order, so a watch resumes from the resourceVersion its list returned. */
  private readonly history: Array<{ plural: 'pods' | 'nodes'; type: string; object: Obj }> = [];
  private readonly watchers = new Set<Watcher>();
  private readonly server: https.Server;

  private constructor(private readonly opts: FakeApiServerOptions) {
    for (const n of opts.nodes) {
      this.objects.nodes.set(n.name, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: n.name, resourceVersion: String(this.rv++), labels: { 'kubernetes.io/hostname': n.name, 'topology.kubernetes.io/zone': n.zone } },
        status: { allocatable: { cpu: '32', memory: '256Gi', pods: '110' } },
      });
    }
    this.server = https.createServer(
      { cert: opts.cert, key: opts.key, keepAliveTimeout: 60_000 },
      (req, res) => this.handle(req, res),
    );
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /**
   * Creates `count` pods at `perSecond`, each bound `bindAfterMs` later unless `bind` is false; resolves once the last
   * is bound.
   */
  async arrive(count: number, perSecond: number, opts: { prefix?: string; bind?: boolean } = {}): Promise<void> {
    const { prefix = 'latency', bind = true } = opts;
    const start = performance.now();
    const bindAfter = this.opts.bindAfterMs ?? 20;
    const bindings: Array<Promise<void>> = [];
    for (let i = 0; i < count; i++) {
      const due = start + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const name = `${prefix}-${i}`;
      this.change('pods', 'ADDED', podJson(name, this.rv++));
      if (!bind) continue;
      const node = this.opts.nodes[i % this.opts.nodes.length].name;
      bindings.push(new Promise((resolve) => setTimeout(() => {
        this.change('pods', 'MODIFIED', podJson(name, this.rv++, node));
        this.bound.set(name, performance.now());
        resolve();
      }, bindAfter)));
    }
    await Promise.all(bindings);
  }

  async close(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private change(plural: 'pods' | 'nodes', type: string, object: Obj): void {
    this.objects[plural].set(object.metadata.name, object);
    this.history.push({ plural, type, object });
    const line = JSON.stringify({ type, object }) + '\n';
    for (const w of this.watchers) if (w.plural === plural && w.matches(object)) w.res.write(line);
  }

  private handle(req: import('http').IncomingMessage, res: import('http').ServerResponse): void {
    const m = PATH.exec(req.url ?? '');
    const answer = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (!m) return answer(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: `${req.url} is not served here` });
    const [, , plural, name, rawQuery] = m;
    const q = new URLSearchParams(rawQuery ?? '');
    if (plural === 'events') return answer(req.method === 'POST' ? 201 : 200, { kind: 'Event', metadata: { name: name ?? 'event' } });
    const objects = this.objects[plural as 'pods' | 'nodes'];
    if (req.method === 'GET' && !name && q.get('watch')) return this.watch(plural, q, res);
    if (req.method === 'GET' && !name) {
      const matches = selector(q.get('labelSelector'));
      return answer(200, {
        kind: 'List',
        apiVersion: 'v1',
        metadata: { resourceVersion: String(this.rv - 1) },
        items: [...objects.values()].filter(matches),
      });
    }
    if (req.method === 'PATCH' && plural === 'pods' && name) return this.patchPod(name, req, answer);
    answer(405, { kind: 'Status', status: 'Failure', reason: 'MethodNotAllowed', code: 405, message: `${req.method} ${req.url}` });
  }

  private watch(plural: string, q: URLSearchParams, res: import('http').ServerResponse): void {
    const matches = selector(q.get('labelSelector'));
    const from = Number(q.get('resourceVersion') ?? 0);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    for (const e of this.history) {
      const isNewer = Number(e.object.metadata.resourceVersion) > from;
      if (e.plural === plural && isNewer && matches(e.object)) {
        res.write(JSON.stringify({ type: e.type, object: e.object }) + '\n');
      }
    }
    const watcher = { plural, matches, res };
    this.watchers.add(watcher);
    res.on('close', () => this.watchers.delete(watcher));
  }

  private patchPod(
    name: string,
    req: import('http').IncomingMessage,
    answer: (status: number, body: unknown) => void,
  ): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => setTimeout(() => {
      const pod = this.objects.pods.get(name);
      if (!pod) return answer(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: `pods "${name}" not found` });
      const patch = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const annotations = { ...pod.metadata.annotations, ...patch.metadata?.annotations };
      const next = { ...pod, metadata: { ...pod.metadata, annotations, resourceVersion: String(this.rv++) } };
      this.change('pods', 'MODIFIED', next);
      answer(200, next);
      this.patches++;
      const firstAnnotated = annotations[ZoneAnnotation.VALUE_ANNOTATION] && !this.annotated.has(name);
      if (firstAnnotated) this.annotated.set(name, performance.now());
    }, this.opts.patchDelayMs));
  }
}
