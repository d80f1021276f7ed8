import { ApiObject, Duration, Size } from 'cdk8s';
import { Construct } from 'constructs';
import {
  checkPlacement, enumOptions, LONGHORN_NAMESPACE, longhornLabels, mergeExtra, staleReplicaTimeoutMinutes,
} from './check';
import { LonghornInventory } from './inventory';
import { LonghornReplicaScheduling, REPLICA_SCHEDULING_PROPS, resolveScheduling } from './options';
import { LonghornPlacementPlan } from './placement-plan';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { ensureValidName } from '../kubernetes/object-names';
import { formatBytes, LONGHORN_SIZE_ALIGNMENT, sizeBytes } from '../kubernetes/quantity';
import { invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';

/** Props for `LonghornVolume`. */
export interface LonghornVolumeProps extends LonghornReplicaScheduling {
  /**
   * The volume size, e.g. `Size.gibibytes(20)`. It must be a multiple of 2 MiB: Longhorn rounds sizes
   * up, which would make the live object differ from the manifest.
   */
  readonly size: Size;

  /**
   * The Volume name.
   *
   * @default - generated from the construct path
   */
  readonly name?: string;

  /**
   * The namespace Longhorn runs in.
   *
   * @default 'longhorn-system'
   */
  readonly namespace?: string;

  /**
   * Minutes Longhorn waits before it removes a replica that failed (whole minutes, at least 1).
   *
   * @default - not set: Longhorn's default
   */
  readonly staleReplicaTimeout?: Duration;

  /**
   * The cluster's Longhorn nodes and disks. When given, the construct plans where the replicas go: it fails
   * synth when the hard anti-affinity levels or the disks' capacity cannot be met, and warns when a soft
   * level had to be relaxed.
   *
   * @default - no placement check
   */
  readonly inventory?: LonghornInventory;

  /**
   * More fields of the Volume's spec, for options without a typed prop (e.g. `accessMode: 'rwx'`,
   * `frontend: 'blockdev'`, `snapshotMaxCount: 10`, `encrypted: true`). Every such field of a Longhorn Volume
   * is a string, a number or a boolean. A field the typed props already set is refused.
   *
   * @default - none
   */
  readonly extraSpec?: { [key: string]: string | number | boolean };
}

/** What a field of the Volume's spec holds: the escape hatch's scalars, or the typed selectors' lists. */
type SpecValue = string | number | boolean | string[];

const SCALAR = Props.custom('a string, a finite number or true/false', (value) =>
  typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
    ? undefined
    : 'must be a string, a finite number or true/false (the fields of a Longhorn Volume\'s spec are scalars)');

const PROPS: PropSpec<LonghornVolumeProps> = {
  ...REPLICA_SCHEDULING_PROPS,
  size: KubeProps.size(),
  name: Props.optional(KubeProps.dnsSubdomain()),
  namespace: Props.optional(KubeProps.dnsLabel()),
  staleReplicaTimeout: Props.optional(KubeProps.duration()),
  inventory: Props.optional(Props.instanceOf(LonghornInventory)),
  extraSpec: Props.optional(Props.mapOf(SCALAR)),
};

/**
 * A Longhorn Volume (`longhorn.io/v1beta2`) with per-volume replica placement overrides. Given an
 * inventory, it checks at synth time that Longhorn can place every replica and says which level cannot be
 * honoured when it cannot.
 */
export class LonghornVolume extends Construct {
  /** The Volume name. */
  public readonly name: string;
  /** The volume size, as given (a multiple of 2 MiB). */
  public readonly size: Size;
  /**
   * The placement the check computed.
   *
   * @default - none (no inventory given)
   */
  public readonly placement?: LonghornPlacementPlan;

  constructor(scope: Construct, id: string, props: LonghornVolumeProps) {
    super(scope, id);
    const where = `LonghornVolume '${this.node.path}'`;
    checkProps(where, props, PROPS, 'LonghornVolumeProps');
    const resolved = resolveScheduling(where, props);
    this.size = props.size;
    const bytes = alignedBytes(where, props.size);
    if (props.inventory) {
      this.placement = checkPlacement(this, where, props.inventory, resolved, bytes);
    }

    const typed: { [key: string]: SpecValue } = { size: String(bytes) };
    if (props.numberOfReplicas !== undefined) typed.numberOfReplicas = props.numberOfReplicas;
    Object.assign(typed, enumOptions(props));
    if (resolved.diskSelector.length > 0) typed.diskSelector = resolved.diskSelector;
    if (resolved.nodeSelector.length > 0) typed.nodeSelector = resolved.nodeSelector;
    if (props.staleReplicaTimeout !== undefined) {
      typed.staleReplicaTimeout = staleReplicaTimeoutMinutes(where, props.staleReplicaTimeout);
    }

    const volume = new ApiObject(this, 'Resource', {
      apiVersion: 'longhorn.io/v1beta2',
      kind: 'Volume',
      // cdk8s generates a name only when the key is absent, not when it is undefined.
      metadata: {
        ...(props.name !== undefined ? { name: props.name } : {}),
        namespace: props.namespace ?? LONGHORN_NAMESPACE,
        labels: longhornLabels(this, 'volume'),
      },
      spec: mergeExtra(where, 'extraSpec', typed, props.extraSpec),
    });
    this.name = ensureValidName(volume);
  }
}

/** The volume's bytes, refused unless a positive multiple of 2 MiB: Longhorn would round it up otherwise. */
function alignedBytes(where: string, size: Size): number {
  const bytes = sizeBytes(size);
  if (bytes > 0 && bytes % LONGHORN_SIZE_ALIGNMENT === 0) return bytes;
  const up = Math.max(1, Math.ceil(bytes / LONGHORN_SIZE_ALIGNMENT)) * LONGHORN_SIZE_ALIGNMENT;
  throw invalidProp(where, 'size', size,
    `must be a positive multiple of 2Mi (${LONGHORN_SIZE_ALIGNMENT} bytes): Longhorn would round it up to ` +
    `${formatBytes(up)} and the live Volume would differ from the manifest; use Size.mebibytes(${up / 1024 / 1024})`);
}
