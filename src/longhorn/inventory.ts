import { Size } from 'cdk8s';
import { checkTags } from './options';
import { labelValueProblem } from '../kubernetes/kubernetes-names';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { formatBytes, sizeBytes } from '../kubernetes/quantity';
import { invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';
import { compare } from '../topology/survival';

/** The kind of a Longhorn disk: v1 volumes use filesystem disks, v2 volumes block disks. */
export enum LonghornDiskType {
  /** A directory on a mounted filesystem (Longhorn's default disk). */
  FILESYSTEM = 'filesystem',
  /** A raw block device (v2 data engine). */
  BLOCK = 'block',
}

/**
 * One Longhorn disk as the scheduler sees it (the disk's entry in the Longhorn Node's spec and status).
 * Sizes are cdk8s `Size`s; a Longhorn Node's status gives bytes: `Size.kibibytes(bytes / 1024)`.
 */
export interface LonghornDiskInventory {
  /** The disk's name, unique on its node. */
  readonly name: string;

  /** The disk's size (`storageMaximum`). */
  readonly capacity: Size;

  /**
   * Free space on the disk right now (`storageAvailable`), used by the minimal-available check and the
   * balance choice.
   *
   * @default - the capacity (an empty disk)
   */
  readonly available?: Size;

  /**
   * Space Longhorn must leave to others (`storageReserved`).
   *
   * @default - none
   */
  readonly reserved?: Size;

  /**
   * Sizes of the replicas of other volumes already scheduled to the disk (`storageScheduled`).
   *
   * @default - none
   */
  readonly scheduled?: Size;

  /**
   * The disk's Longhorn tags (matched by a volume's `diskSelector`).
   *
   * @default - no tags
   */
  readonly tags?: string[];

  /**
   * Whether Longhorn may schedule replicas to the disk.
   *
   * @default true
   */
  readonly allowScheduling?: boolean;

  /**
   * The disk's type.
   *
   * @default LonghornDiskType.FILESYSTEM
   */
  readonly diskType?: LonghornDiskType;
}

/** One Longhorn node: its zone, tags and disks. */
export interface LonghornNodeInventory {
  /** The node's name, unique in the inventory. */
  readonly name: string;

  /**
   * The node's zone (the value of its `topology.kubernetes.io/zone` label).
   *
   * @default - no zone label: Longhorn counts every such node as one zone
   */
  readonly zone?: string;

  /**
   * The node's Longhorn tags (matched by a volume's `nodeSelector`).
   *
   * @default - no tags
   */
  readonly tags?: string[];

  /**
   * Whether Longhorn may schedule replicas to the node (ready, schedulable and not cordoned).
   *
   * @default true
   */
  readonly allowScheduling?: boolean;

  /** The node's Longhorn disks (may be empty). */
  readonly disks: LonghornDiskInventory[];
}

/** Props for `LonghornInventory`. */
export interface LonghornInventoryProps {
  /** The Longhorn nodes, with their zones and disks. At least one. */
  readonly nodes: LonghornNodeInventory[];
}

/** A disk with its quantities in bytes and every default filled in. */
export interface InventoryDisk {
  readonly node: string;
  readonly zone: string;
  readonly name: string;
  readonly type: LonghornDiskType;
  readonly capacity: number;
  readonly available: number;
  readonly reserved: number;
  readonly scheduled: number;
  readonly tags: string[];
  readonly allowScheduling: boolean;
}

/** A node with every default filled in; `zone` is '' for a node without a zone label. */
export interface InventoryNode {
  readonly name: string;
  readonly zone: string;
  readonly tags: string[];
  readonly allowScheduling: boolean;
  readonly disks: InventoryDisk[];
}

const DISK_PROPS: PropSpec<LonghornDiskInventory> = {
  name: Props.nonEmptyString(),
  capacity: KubeProps.size(true),
  available: Props.optional(KubeProps.size(true)),
  reserved: Props.optional(KubeProps.size(true)),
  scheduled: Props.optional(KubeProps.size(true)),
  diskType: Props.optional(Props.enumOf(LonghornDiskType, 'LonghornDiskType')),
  tags: Props.optional(Props.arrayOf(Props.string())),
  allowScheduling: Props.optional(Props.boolean()),
};

const NODE_PROPS: PropSpec<LonghornNodeInventory> = {
  name: Props.nonEmptyString(),
  zone: Props.optional(Props.string()),
  disks: Props.arrayOf(Props.struct(DISK_PROPS, 'LonghornDiskInventory')),
  tags: Props.optional(Props.arrayOf(Props.string())),
  allowScheduling: Props.optional(Props.boolean()),
};

const PROPS: PropSpec<LonghornInventoryProps> = {
  nodes: Props.arrayOf(Props.struct(NODE_PROPS, 'LonghornNodeInventory'), 1, 'a list of at least one node'),
};

/**
 * What a Longhorn cluster has to offer replicas: zones > nodes > disks with capacity, tags and
 * schedulable flags. Give it to `LonghornStorageClass`, `LonghornVolume` or `LonghornPlacement.plan` to
 * check at synth time where replicas would go. Validated at construction: unique names, whole
 * non-negative byte quantities, free space and reservations within the capacity.
 */
export class LonghornInventory {
  /** The zones of the nodes, sorted (without the unnamed zone of nodes that have no zone label). */
  public readonly zones: string[];
  /** The node names, sorted. */
  public readonly nodeNames: string[];
  /** The number of disks on all nodes. */
  public readonly diskCount: number;

  /** @internal the normalized nodes, sorted by name, their disks sorted by name */
  public readonly _nodes: InventoryNode[];

  constructor(props: LonghornInventoryProps) {
    const where = 'LonghornInventory';
    checkProps(where, props, PROPS, 'LonghornInventoryProps');
    const names = new Map<string, number>();
    this._nodes = props.nodes.map((node, i) => {
      const at = `nodes[${i}]`;
      if (names.has(node.name)) {
        throw invalidProp(where, `${at}.name`, node.name, `duplicates nodes[${names.get(node.name)}].name: every node must be listed once`);
      }
      names.set(node.name, i);
      if (node.zone !== undefined) {
        const problem = node.zone === '' ? 'must not be empty (omit it for a node without a zone label)' : labelValueProblem(node.zone);
        if (problem) throw invalidProp(where, `${at}.zone`, node.zone, problem);
      }
      const zone = node.zone ?? '';
      const disks = inventoryDisks(where, at, node, zone);
      return {
        name: node.name,
        zone,
        tags: checkTags(where, `${at}.tags`, node.tags ?? []),
        allowScheduling: node.allowScheduling ?? true,
        disks: disks.sort((a, b) => compare(a.name, b.name)),
      };
    }).sort((a, b) => compare(a.name, b.name));

    this.nodeNames = this._nodes.map((n) => n.name);
    this.zones = [...new Set(this._nodes.map((n) => n.zone).filter((z) => z !== ''))].sort(compare);
    this.diskCount = this._nodes.reduce((sum, n) => sum + n.disks.length, 0);
  }
}

/** A node's disks, normalized: sizes in bytes, each within its capacity, names unique on the node. */
function inventoryDisks(where: string, at: string, node: LonghornNodeInventory, zone: string): InventoryDisk[] {
  const diskNames = new Map<string, number>();
  return (node.disks ?? []).map((disk, j): InventoryDisk => {
    const d = `${at}.disks[${j}]`;
    if (diskNames.has(disk.name)) {
      throw invalidProp(where, `${d}.name`, disk.name,
        `duplicates ${at}.disks[${diskNames.get(disk.name)}].name: disk names must be unique on a node`);
    }
    diskNames.set(disk.name, j);
    const capacity = sizeBytes(disk.capacity);
    const available = disk.available === undefined ? capacity : sizeBytes(disk.available);
    const reserved = disk.reserved === undefined ? 0 : sizeBytes(disk.reserved);
    const scheduled = disk.scheduled === undefined ? 0 : sizeBytes(disk.scheduled);
    if (available > capacity) throw invalidProp(where, `${d}.available`, disk.available, `exceeds the capacity ${formatBytes(capacity)}`);
    if (reserved > capacity) throw invalidProp(where, `${d}.reserved`, disk.reserved, `exceeds the capacity ${formatBytes(capacity)}`);
    const type = disk.diskType ?? LonghornDiskType.FILESYSTEM;
    return {
      node: node.name,
      zone,
      name: disk.name,
      type,
      capacity,
      available,
      reserved,
      scheduled,
      tags: checkTags(where, `${d}.tags`, disk.tags ?? []),
      allowScheduling: disk.allowScheduling ?? true,
    };
  });
}
