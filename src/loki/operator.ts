import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { LokiOperatorStorage, LokiStackSize, ResolvedLoki } from './options';
import { standardLabels } from '../kubernetes/standard-labels';

/** What the operator output needs beyond the shared settings (internal). */
export interface OperatorLokiStack {
  readonly size: LokiStackSize;
  /** The ingesters (`spec.template.ingester.replicas`), checked against the replication factor and zones. */
  readonly ingesterReplicas: number;
  readonly storage: LokiOperatorStorage;
  readonly storageClassName: string;
  /** Node label keys to spread over besides the topology's zone key. */
  readonly extraTopologyKeys: string[];
}

/**
 * A `LokiStack` (loki.grafana.com/v1) with zone-aware replication: `spec.replication` with the factor and
 * one zone entry per topology key, never the deprecated `spec.replicationFactor` (the operator's webhook
 * rejects both together).
 */
export function operatorLokiStack(
  scope: Construct, p: Pick<ResolvedLoki, 'topology' | 'name' | 'metadataNamespace' | 'replicationFactor' | 'maxSkew'>, o: OperatorLokiStack,
): ApiObject {
  const keys = [p.topology.topologyKey, ...o.extraTopologyKeys];
  return new ApiObject(scope, 'lokistack', {
    apiVersion: 'loki.grafana.com/v1',
    kind: 'LokiStack',
    metadata: { name: p.name, namespace: p.metadataNamespace, labels: standardLabels('loki', p.name, 'lokistack') },
    spec: {
      size: o.size,
      storage: { secret: { name: o.storage.secretName, type: o.storage.type } },
      storageClassName: o.storageClassName,
      // Always explicit: the survival check counted these, whatever the operator's size table says.
      template: { ingester: { replicas: o.ingesterReplicas } },
      replication: {
        factor: p.replicationFactor,
        zones: keys.map((topologyKey) => ({ topologyKey, maxSkew: p.maxSkew })),
      },
    },
  });
}
