/**
 * A namespace `ns` for the ZoneDisruptionBudget tests: a StatefulSet `db` of 6 pods, db-i on node-a, -b, -c
 * (zone-a, -b, -c) by i % 3, each with its claim, and a budget over them.
 */
import { KubeObject } from '../src/kube/api';
import { BudgetWorld, SELECTED_NODE_ANNOTATION } from '../src/reconcilers/zone-disruption-budget-decision';

const ZONES: Record<string, string> = { 'node-a': 'zone-a', 'node-b': 'zone-b', 'node-c': 'zone-c', 'bare': '' };
const nodeLabels = (node: string): Record<string, string> | undefined =>
  node in ZONES ? (ZONES[node] ? { 'topology.kubernetes.io/zone': ZONES[node] } : {}) : undefined;

const STS: KubeObject = {
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'ns', uid: 'sts' },
  spec: {
    replicas: 6,
    template: { metadata: { labels: { app: 'db' } } },
    volumeClaimTemplates: [{ metadata: { name: 'data' } }],
  },
};

export function pod(i: number, opts: { ready?: boolean; node?: string; terminating?: boolean } = {}): KubeObject {
  return {
    metadata: {
      name: `db-${i}`,
      namespace: 'ns',
      labels: { app: 'db' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'sts', controller: true }],
      ...(opts.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { nodeName: opts.node ?? ['node-a', 'node-b', 'node-c'][i % 3] },
    status: { conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
  };
}

const claim = (i: number): KubeObject => ({
  metadata: {
    name: `data-db-${i}`,
    namespace: 'ns',
    annotations: { [SELECTED_NODE_ANNOTATION]: ['node-a', 'node-b', 'node-c'][i % 3] },
  },
});

export function world(pods: KubeObject[], over: Partial<BudgetWorld> = {}): BudgetWorld {
  return {
    pods,
    owners: [STS],
    claims: [0, 1, 2, 3, 4, 5].map(claim),
    nodeLabels,
    topologyKeys: ['topology.kubernetes.io/zone'],
    lastZones: new Map(),
    ...over,
  };
}

export const zdb = (maxUnavailable: number | string, dryRun = false): KubeObject =>
  ({
    metadata: { name: 'db', namespace: 'ns', generation: 3 },
    spec: { selector: { matchLabels: { app: 'db' } }, maxUnavailable, dryRun },
  });

export const all = () => [0, 1, 2, 3, 4, 5].map((i) => pod(i));
