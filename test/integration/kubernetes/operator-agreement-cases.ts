/**
 * The resources operator-agreement.test.ts gives the real operators: the operators' own samples from
 * test/check/real-corpus (judged by hand there) and variants written from each operator's docs that spread the
 * pods over zones, so a zone loss has an exact outcome to hold the model to.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { KubeObject } from './kube-client';
import { ZONE_KEY } from './nodes';
import { REAL_CORPUS } from '../../check/real-corpus-files';

export interface OperatorCase {
  readonly id: string;
  /** The operator that acts on it (RealOperator.name). */
  readonly operator: string;
  /** Its objects, with no namespace: the test applies each case in a namespace of its own. */
  readonly objects: KubeObject[];
}

/** A hard zone spread of the pods labelled `labels`. */
const zoneSpread = (labels: Record<string, string>) => [{
  maxSkew: 1,
  topologyKey: ZONE_KEY,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: labels },
}];

/**
 * What a MongoDB sample's namespace needs besides it: the Secret its user names for a password (the operator
 * goes no further without it) and the ServiceAccount its pods run as, which the operator's install
 * (config/rbac) puts in each namespace it serves.
 */
const MONGODB_NEEDS: KubeObject[] = [
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'my-user-password' },
    type: 'Opaque',
    stringData: { password: 'agreement-test-only' },
  } as KubeObject,
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'mongodb-database' } },
];

function withoutNamespace(o: KubeObject): KubeObject {
  const { namespace, ...metadata } = o.metadata;
  return { ...o, metadata };
}

/** The resources of one real-corpus file. */
function corpusFile(dir: string, file: string): KubeObject[] {
  const text = fs.readFileSync(path.join(REAL_CORPUS, dir, file), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter((o) => o?.kind).map(withoutNamespace);
}

/**
 * Samples the operator's own CRD refuses: Spotahome's example-minimum.yaml has no `spec`, which its CRD at v1.2.4
 * requires (422 "spec: Required value"), so no operator ever sees it.
 */
const REFUSED_BY_THEIR_CRD = new Set(['spotahome-redis-operator/example-minimum.yaml']);

function samples(operator: string, dir: string, extra: KubeObject[] = []): OperatorCase[] {
  return fs.readdirSync(path.join(REAL_CORPUS, dir)).sort()
    .filter((f) => f.endsWith('.yaml') && !REFUSED_BY_THEIR_CRD.has(`${dir}/${f}`))
    .map((f) => ({ id: `${dir}/${f}`, operator, objects: [...corpusFile(dir, f), ...extra] }));
}

/** Variants from the docs: each operator's pods spread hard over the zones. */
function variants(): OperatorCase[] {
  const mongodb = corpusFile('mongodb-community', 'sample-cr.yaml')[0] as any;
  const vmcluster = corpusFile('victoriametrics-operator', 'example-vmcluster.yaml')[0] as any;
  return [
    {
      id: 'MongoDBCommunity: 3 members, a hard zone spread through the statefulSet override',
      operator: 'mongodb-community-operator',
      objects: [{
        ...mongodb,
        metadata: { name: 'spread-mongodb' },
        spec: {
          ...mongodb.spec,
          statefulSet: { spec: { template: { spec: { topologySpreadConstraints: zoneSpread({ app: 'spread-mongodb-svc' }) } } } },
        },
      }, ...MONGODB_NEEDS],
    },
    {
      id: 'VMCluster: 3 vmstorage spread hard over the zones, replicationFactor 2',
      operator: 'victoriametrics-operator',
      objects: [{
        ...vmcluster,
        metadata: { name: 'spread-vm' },
        spec: {
          ...vmcluster.spec,
          vmstorage: {
            ...vmcluster.spec.vmstorage,
            replicaCount: 3,
            topologySpreadConstraints: zoneSpread({
              'app.kubernetes.io/name': 'vmstorage',
              'app.kubernetes.io/instance': 'spread-vm',
            }),
          },
        },
      }],
    },
  ];
}

export function operatorCases(): OperatorCase[] {
  return [
    ...samples('spotahome-redis-operator', 'spotahome-redis-operator'),
    ...samples('mongodb-community-operator', 'mongodb-community', MONGODB_NEEDS),
    ...samples('victoriametrics-operator', 'victoriametrics-operator'),
    ...variants(),
  ];
}
