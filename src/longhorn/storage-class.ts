import { Duration, Size } from 'cdk8s';
import { k8s, PersistentVolumeReclaimPolicy } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { checkPlacement, enumOptions, longhornLabels, mergeExtra, staleReplicaTimeoutMinutes } from './check';
import { LonghornInventory } from './inventory';
import { LonghornReplicaScheduling, REPLICA_SCHEDULING_PROPS, resolveScheduling } from './options';
import { LonghornPlacementPlan } from './placement-plan';
import { replicaSizeOf } from './planner';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { clusterScoped, ensureValidName } from '../kubernetes/object-names';
import { invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';

/** When a StorageClass binds and provisions a volume. */
export enum VolumeBindingMode {
  /** As soon as the claim is created. */
  IMMEDIATE = 'Immediate',
  /** When the first pod using the claim is scheduled. */
  WAIT_FOR_FIRST_CONSUMER = 'WaitForFirstConsumer',
}

/** Props for `LonghornStorageClass`. */
export interface LonghornStorageClassProps extends LonghornReplicaScheduling {
  /**
   * The StorageClass name.
   *
   * @default - generated from the construct path
   */
  readonly name?: string;

  /**
   * Minutes Longhorn waits before it removes a replica that failed (whole minutes, at least 1).
   *
   * @default - not set: Longhorn's default, 2880 minutes (48 hours)
   */
  readonly staleReplicaTimeout?: Duration;

  /**
   * When volumes are bound.
   *
   * @default VolumeBindingMode.IMMEDIATE
   */
  readonly volumeBindingMode?: VolumeBindingMode;

  /**
   * Whether claims may grow.
   *
   * @default true
   */
  readonly allowVolumeExpansion?: boolean;

  /**
   * What happens to a volume when its claim is deleted.
   *
   * @default PersistentVolumeReclaimPolicy.DELETE
   */
  readonly reclaimPolicy?: PersistentVolumeReclaimPolicy;

  /**
   * Marks the class as the cluster's default StorageClass.
   *
   * @default false
   */
  readonly defaultClass?: boolean;

  /**
   * The cluster's Longhorn nodes and disks. When given, the construct plans where a volume's replicas would
   * go: it fails synth when the hard anti-affinity levels cannot be met, and warns when a soft level had to
   * be relaxed.
   *
   * @default - no placement check
   */
  readonly inventory?: LonghornInventory;

  /**
   * The volume size the placement check plans for. A StorageClass has no
   * size of its own: give the size of the claims you expect (the largest, to be safe).
   *
   * @default - no size: the check verifies the placement rules and skips disks already out of room, but
   * cannot tell whether a volume of a given size fits
   */
  readonly representativeVolumeSize?: Size;

  /**
   * More StorageClass parameters, for options without a typed prop (e.g. `fsType`, `recurringJobSelector`).
   * A parameter the typed props already set is refused.
   *
   * @default - none
   */
  readonly extraParameters?: { [key: string]: string };
}

const PROPS: PropSpec<LonghornStorageClassProps> = {
  ...REPLICA_SCHEDULING_PROPS,
  name: Props.optional(KubeProps.dnsSubdomain()),
  staleReplicaTimeout: Props.optional(KubeProps.duration()),
  volumeBindingMode: Props.optional(Props.enumOf(VolumeBindingMode, 'VolumeBindingMode')),
  allowVolumeExpansion: Props.optional(Props.boolean()),
  reclaimPolicy: Props.optional(Props.enumOf(PersistentVolumeReclaimPolicy, 'PersistentVolumeReclaimPolicy')),
  defaultClass: Props.optional(Props.boolean()),
  inventory: Props.optional(Props.instanceOf(LonghornInventory)),
  representativeVolumeSize: Props.optional(KubeProps.size()),
  extraParameters: Props.optional(Props.mapOf(Props.string())),
};

/**
 * A StorageClass for Longhorn (`driver.longhorn.io`) with typed replica placement options: replica count,
 * zone, node and disk anti-affinity, selectors, data locality. Given an inventory, it checks at synth time
 * that Longhorn can place the replicas and says which level cannot be honoured when it cannot.
 */
export class LonghornStorageClass extends Construct {
  /** The StorageClass name. */
  public readonly name: string;
  /** The StorageClass parameters as emitted (strings, as Kubernetes stores them). */
  public readonly parameters: { [key: string]: string };
  /**
   * The placement the check computed.
   *
   * @default - none (no inventory given)
   */
  public readonly placement?: LonghornPlacementPlan;

  constructor(scope: Construct, id: string, props: LonghornStorageClassProps = {}) {
    super(scope, id);
    const where = `LonghornStorageClass '${this.node.path}'`;
    checkProps(where, props, PROPS, 'LonghornStorageClassProps');
    const resolved = resolveScheduling(where, props);
    if (props.representativeVolumeSize !== undefined && !props.inventory) {
      throw invalidProp(where, 'representativeVolumeSize', props.representativeVolumeSize,
        'is only used by the placement check: give an inventory too');
    }
    if (props.inventory) {
      const size = replicaSizeOf(props.representativeVolumeSize);
      this.placement = checkPlacement(this, where, props.inventory, resolved, size);
    }

    const typed: { [key: string]: string } = {};
    if (props.numberOfReplicas !== undefined) typed.numberOfReplicas = String(props.numberOfReplicas);
    if (props.staleReplicaTimeout !== undefined) {
      typed.staleReplicaTimeout = String(staleReplicaTimeoutMinutes(where, props.staleReplicaTimeout));
    }
    Object.assign(typed, enumOptions(props));
    // Longhorn splits selectors on commas; an empty string would become the tag "".
    if (resolved.diskSelector.length > 0) typed.diskSelector = resolved.diskSelector.join(',');
    if (resolved.nodeSelector.length > 0) typed.nodeSelector = resolved.nodeSelector.join(',');
    this.parameters = mergeExtra(where, 'extraParameters', typed, props.extraParameters);

    const storageClass = clusterScoped(new k8s.KubeStorageClass(this, 'Resource', {
      // cdk8s generates a name only when the key is absent, not when it is undefined.
      metadata: {
        ...(props.name !== undefined ? { name: props.name } : {}),
        labels: longhornLabels(this, 'storage-class'),
        ...(props.defaultClass ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
      },
      provisioner: 'driver.longhorn.io',
      parameters: this.parameters,
      reclaimPolicy: props.reclaimPolicy ?? PersistentVolumeReclaimPolicy.DELETE,
      volumeBindingMode: props.volumeBindingMode ?? VolumeBindingMode.IMMEDIATE,
      allowVolumeExpansion: props.allowVolumeExpansion ?? true,
    }));
    this.name = ensureValidName(storageClass);
  }
}
