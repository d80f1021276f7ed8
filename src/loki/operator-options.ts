import { LokiObjectStorageType, LokiOperatorStorage, LokiStackSize } from './options';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { Props, PropSpec } from '../shared/props';

/** What only the Loki operator output (a `LokiStack`) takes. */
export interface LokiOperatorOptions {
  /** The object storage Secret the operator reads (`spec.storage.secret`). */
  readonly objectStorage: LokiOperatorStorage;

  /**
   * The StorageClass of the LokiStack's volumes (`spec.storageClassName`). Use one with volumeBindingMode
   * WaitForFirstConsumer, so volumes are made in their pod's zone.
   */
  readonly storageClassName: string;

  /**
   * The operator's t-shirt size.
   *
   * @default LokiStackSize.ONE_X_SMALL
   */
  readonly size?: LokiStackSize;

  /**
   * The ingesters, written into `spec.template.ingester.replicas`. The construct checks that the write quorum
   * holds with any one zone down for the worst placement the zone spread allows, and refuses a count that
   * cannot.
   *
   * @default - the size's ingester count when it keeps writes going with a zone down, else the fewest that do
   * (3 for replicationFactor 3 over 3 zones with 1x.small, which runs 2)
   */
  readonly ingesterReplicas?: number;

  /**
   * Further node label keys to spread over, besides the topology's zone key (one `spec.replication.zones`
   * entry each; the operator joins their values with `_` into the zone).
   *
   * @default - none
   */
  readonly extraTopologyKeys?: string[];
}

export const LOKI_OPERATOR_PROPS: PropSpec<LokiOperatorOptions> = {
  objectStorage: Props.struct<LokiOperatorStorage>({
    secretName: KubeProps.dnsSubdomain(),
    type: Props.enumOf(LokiObjectStorageType, 'LokiObjectStorageType'),
  }, 'LokiOperatorStorage'),
  storageClassName: KubeProps.dnsSubdomain(),
  size: Props.optional(Props.enumOf(LokiStackSize, 'LokiStackSize')),
  ingesterReplicas: Props.optional(Props.integer(1)),
  extraTopologyKeys: Props.optional(Props.arrayOf(KubeProps.labelKey())),
};
