/** Shared objects of the rollout tests (ZoneAwareUpdate, ZoneDisruptionBudget) on the test cluster. */
import { Chart, Testing } from 'cdk8s';
import { ZoneRolloutCrds } from '../../../src';
import { KubeObject } from './kube-client';
import { ZONE_KEY } from './nodes';

/** A StatefulSet of pause containers that passes Pod Security "restricted", spread evenly over the zones. */
export function statefulSet(name: string, ns: string, replicas: number, updateStrategy: object): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      serviceName: name,
      podManagementPolicy: 'Parallel',
      updateStrategy,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE_KEY, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: name } } }],
          containers: [{
            name: 'app', image: 'registry.k8s.io/pause:3.10',
            resources: { requests: { cpu: '10m', memory: '16Mi' } },
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          }],
        },
      },
    },
  };
}

/** The CRDs of ZoneAwareUpdate and ZoneDisruptionBudget, as the library synthesizes them. */
export function crds(): KubeObject[] {
  const chart = new Chart(Testing.app(), 'crds');
  new ZoneRolloutCrds(chart, 'crds');
  return Testing.synth(chart);
}
