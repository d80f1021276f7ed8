import { invalidProp } from '../shared/errors';
import { Props, PropSpec } from '../shared/props';

/**
 * Longhorn's replica anti-affinity mode at one level (zone, node or disk), as a StorageClass parameter or
 * a Volume field. "Soft" anti-affinity means replicas *may* share a domain when there is no other way.
 */
export enum AntiAffinity {
  /** Use the global Longhorn setting for this level (`replica-*-soft-anti-affinity`). */
  IGNORED = 'ignored',
  /** Soft: replicas of a volume avoid sharing the domain but may share it when nothing else fits. */
  ENABLED = 'enabled',
  /** Hard: replicas of a volume never share the domain; a replica that does not fit stays unscheduled. */
  DISABLED = 'disabled',
}

/** Longhorn's data locality: whether a replica is kept on the node the volume is attached to. */
export enum LonghornDataLocality {
  /** No preference (Longhorn's default). */
  DISABLED = 'disabled',
  /** Try to keep one replica on the attached node. */
  BEST_EFFORT = 'best-effort',
  /** Exactly one replica, always on the attached node (requires `numberOfReplicas: 1`). */
  STRICT_LOCAL = 'strict-local',
}

/** Longhorn's data engine. */
export enum LonghornDataEngine {
  /** The v1 engine: replicas live on filesystem disks. */
  V1 = 'v1',
  /** The v2 (SPDK) engine: replicas live on block disks. */
  V2 = 'v2',
}

/** Longhorn's replica auto-balance mode: whether Longhorn moves replicas after they were scheduled. */
export enum LonghornReplicaAutoBalance {
  /** Use the global `replica-auto-balance` setting (volume level only). */
  IGNORED = 'ignored',
  /** Never rebalance. */
  DISABLED = 'disabled',
  /** Rebalance only to restore redundancy (a volume with replicas crowded on too few nodes or zones). */
  LEAST_EFFORT = 'least-effort',
  /** Rebalance until replicas are evenly spread. */
  BEST_EFFORT = 'best-effort',
}

/**
 * Replica scheduling options shared by `LonghornStorageClass`, `LonghornVolume` and the placement
 * planner. Each level's anti-affinity falls back to the global setting when unset or `IGNORED`.
 */
export interface LonghornReplicaScheduling {
  /**
   * Replicas of each volume. Must be at least 1 (exactly 1 with `STRICT_LOCAL` data locality).
   *
   * @default - not set: Longhorn uses the `default-replica-count` setting (`settings.defaultReplicaCount`, 3)
   */
  readonly numberOfReplicas?: number;

  /**
   * Node-level anti-affinity (`replicaSoftAntiAffinity`).
   *
   * @default - not set: the global `replica-soft-anti-affinity` setting (Longhorn's default: DISABLED, hard)
   */
  readonly replicaSoftAntiAffinity?: AntiAffinity;

  /**
   * Zone-level anti-affinity (`replicaZoneSoftAntiAffinity`). Nodes without a zone label count as one zone.
   *
   * @default - not set: the global `replica-zone-soft-anti-affinity` setting (Longhorn's default: ENABLED, soft)
   */
  readonly replicaZoneSoftAntiAffinity?: AntiAffinity;

  /**
   * Disk-level anti-affinity (`replicaDiskSoftAntiAffinity`): whether two replicas that share a node may
   * also share a disk.
   *
   * @default - not set: the global `replica-disk-soft-anti-affinity` setting (Longhorn's default: ENABLED, soft)
   */
  readonly replicaDiskSoftAntiAffinity?: AntiAffinity;

  /**
   * Longhorn disk tags a disk must carry (all of them) to hold a replica.
   *
   * @default - any disk
   */
  readonly diskSelector?: string[];

  /**
   * Longhorn node tags a node must carry (all of them) to hold a replica.
   *
   * @default - any node
   */
  readonly nodeSelector?: string[];

  /**
   * Data locality. The placement check cannot know where a volume will be attached, so it plans as if
   * locality were disabled.
   *
   * @default - not set: the global `default-data-locality` setting (Longhorn's default: DISABLED)
   */
  readonly dataLocality?: LonghornDataLocality;

  /**
   * Replica auto-balance.
   *
   * @default - not set: the global `replica-auto-balance` setting (Longhorn's default: DISABLED)
   */
  readonly replicaAutoBalance?: LonghornReplicaAutoBalance;

  /**
   * The data engine. v1 replicas go to filesystem disks, v2 replicas to block disks.
   *
   * @default - not set: Longhorn uses V1
   */
  readonly dataEngine?: LonghornDataEngine;

  /**
   * The global Longhorn settings in force, used to resolve `IGNORED` and unset options and for the
   * capacity check. Pass `LonghornSettings.scheduling` when the chart also manages the settings.
   *
   * @default - Longhorn's default settings
   */
  readonly settings?: LonghornSchedulingSettings;
}

/** A level of Longhorn's replica anti-affinity, from the coarsest to the finest. */
export enum AntiAffinityLevel {
  /** Replicas in different zones (nodes without a zone label count as one zone). */
  ZONE = 'zone',
  /** Replicas on different nodes. */
  NODE = 'node',
  /** Replicas on different disks (matters only for replicas that share a node). */
  DISK = 'disk',
}

/**
 * The global Longhorn settings that decide where replicas go. Every value is optional and defaults to
 * Longhorn's own default, so `{}` describes a fresh Longhorn installation.
 */
export interface LonghornSchedulingSettings {
  /**
   * `replica-soft-anti-affinity`: may replicas of a volume share a node? ENABLED or DISABLED.
   *
   * @default AntiAffinity.DISABLED
   */
  readonly replicaSoftAntiAffinity?: AntiAffinity;

  /**
   * `replica-zone-soft-anti-affinity`: may replicas of a volume share a zone? ENABLED or DISABLED.
   *
   * @default AntiAffinity.ENABLED
   */
  readonly replicaZoneSoftAntiAffinity?: AntiAffinity;

  /**
   * `replica-disk-soft-anti-affinity`: may replicas of a volume share a disk? ENABLED or DISABLED.
   *
   * @default AntiAffinity.ENABLED
   */
  readonly replicaDiskSoftAntiAffinity?: AntiAffinity;

  /**
   * `storage-over-provisioning-percentage`: a disk accepts replicas while the sum of their sizes stays within
   * this percentage of (capacity - reserved). An integer >= 0.
   *
   * @default 100
   */
  readonly storageOverProvisioningPercentage?: number;

  /**
   * `storage-minimal-available-percentage`: a disk whose free space is at or below this percentage of its
   * capacity accepts no new replica. An integer from 0 to 100.
   *
   * @default 25
   */
  readonly storageMinimalAvailablePercentage?: number;

  /**
   * `replica-auto-balance`: DISABLED, LEAST_EFFORT or BEST_EFFORT.
   *
   * @default LonghornReplicaAutoBalance.DISABLED
   */
  readonly replicaAutoBalance?: LonghornReplicaAutoBalance;

  /**
   * `default-replica-count`: replicas of a volume that does not say. An integer >= 1.
   *
   * @default 3
   */
  readonly defaultReplicaCount?: number;

  /**
   * `default-data-locality`: data locality of a volume that does not say.
   *
   * @default LonghornDataLocality.DISABLED
   */
  readonly defaultDataLocality?: LonghornDataLocality;

  /**
   * `allow-empty-node-selector-volume`: may a volume without a node selector use tagged nodes?
   *
   * @default true
   */
  readonly allowEmptyNodeSelectorVolume?: boolean;

  /**
   * `allow-empty-disk-selector-volume`: may a volume without a disk selector use tagged disks?
   *
   * @default true
   */
  readonly allowEmptyDiskSelectorVolume?: boolean;

  /**
   * `storage-reserved-percentage-for-default-disk`: the share of the default disk Longhorn reserves on each
   * new node. It only affects disks Longhorn creates; give `reserved` per disk in a `LonghornInventory`.
   * An integer from 0 to 100.
   *
   * @default 30
   */
  readonly storageReservedPercentageForDefaultDisk?: number;
}

/** Longhorn accepts 1 to 20 replicas per volume (its replica-count validation). */
export const MAX_LONGHORN_REPLICAS = 20;

/** The run-time checks of `LonghornSchedulingSettings`. */
export const SCHEDULING_SETTINGS_PROPS: PropSpec<LonghornSchedulingSettings> = {
  replicaSoftAntiAffinity: Props.optional(Props.enumOf(AntiAffinity, 'AntiAffinity')),
  replicaZoneSoftAntiAffinity: Props.optional(Props.enumOf(AntiAffinity, 'AntiAffinity')),
  replicaDiskSoftAntiAffinity: Props.optional(Props.enumOf(AntiAffinity, 'AntiAffinity')),
  storageOverProvisioningPercentage: Props.optional(Props.integer(0)),
  storageMinimalAvailablePercentage: Props.optional(Props.integer(0, 100)),
  replicaAutoBalance: Props.optional(Props.enumOf(LonghornReplicaAutoBalance, 'LonghornReplicaAutoBalance')),
  defaultReplicaCount: Props.optional(Props.integer(1, MAX_LONGHORN_REPLICAS)),
  defaultDataLocality: Props.optional(Props.enumOf(LonghornDataLocality, 'LonghornDataLocality')),
  allowEmptyNodeSelectorVolume: Props.optional(Props.boolean()),
  allowEmptyDiskSelectorVolume: Props.optional(Props.boolean()),
  storageReservedPercentageForDefaultDisk: Props.optional(Props.integer(0, 100)),
};

/** The run-time checks of `LonghornReplicaScheduling` (tags are checked by `checkTags`). */
export const REPLICA_SCHEDULING_PROPS: PropSpec<LonghornReplicaScheduling> = {
  numberOfReplicas: Props.optional(Props.integer(1, MAX_LONGHORN_REPLICAS)),
  replicaSoftAntiAffinity: Props.optional(Props.enumOf(AntiAffinity, 'AntiAffinity')),
  replicaZoneSoftAntiAffinity: Props.optional(Props.enumOf(AntiAffinity, 'AntiAffinity')),
  replicaDiskSoftAntiAffinity: Props.optional(Props.enumOf(AntiAffinity, 'AntiAffinity')),
  diskSelector: Props.optional(Props.arrayOf(Props.string())),
  nodeSelector: Props.optional(Props.arrayOf(Props.string())),
  dataLocality: Props.optional(Props.enumOf(LonghornDataLocality, 'LonghornDataLocality')),
  replicaAutoBalance: Props.optional(Props.enumOf(LonghornReplicaAutoBalance, 'LonghornReplicaAutoBalance')),
  dataEngine: Props.optional(Props.enumOf(LonghornDataEngine, 'LonghornDataEngine')),
  settings: Props.optional(Props.struct(SCHEDULING_SETTINGS_PROPS, 'LonghornSchedulingSettings')),
};

/** Longhorn's setting defaults (longhorn-manager types/setting.go). */
export const LONGHORN_DEFAULTS = {
  replicaSoftAntiAffinity: AntiAffinity.DISABLED,
  replicaZoneSoftAntiAffinity: AntiAffinity.ENABLED,
  replicaDiskSoftAntiAffinity: AntiAffinity.ENABLED,
  storageOverProvisioningPercentage: 100,
  storageMinimalAvailablePercentage: 25,
  replicaAutoBalance: LonghornReplicaAutoBalance.DISABLED,
  defaultReplicaCount: 3,
  defaultDataLocality: LonghornDataLocality.DISABLED,
  allowEmptyNodeSelectorVolume: true,
  allowEmptyDiskSelectorVolume: true,
  storageReservedPercentageForDefaultDisk: 30,
};

/** Every scheduling setting, defaults filled in. */
export type FullSchedulingSettings = typeof LONGHORN_DEFAULTS;

/** For each level: the volume option, the global setting that backs it, and the settings key. */
export const LEVELS: { level: AntiAffinityLevel; option: 'replicaZoneSoftAntiAffinity' | 'replicaSoftAntiAffinity' | 'replicaDiskSoftAntiAffinity'; setting: string }[] = [
  { level: AntiAffinityLevel.ZONE, option: 'replicaZoneSoftAntiAffinity', setting: 'replica-zone-soft-anti-affinity' },
  { level: AntiAffinityLevel.NODE, option: 'replicaSoftAntiAffinity', setting: 'replica-soft-anti-affinity' },
  { level: AntiAffinityLevel.DISK, option: 'replicaDiskSoftAntiAffinity', setting: 'replica-disk-soft-anti-affinity' },
];

/** Validates global settings and fills in Longhorn's defaults. */
export function resolveSettings(
  where: string,
  settings: LonghornSchedulingSettings = {},
  prefix = 'settings.',
): FullSchedulingSettings {
  const given = Object.entries(settings).filter(([, value]) => value !== undefined);
  // the props were checked: each given key is a setting of LONGHORN_DEFAULTS, of its type
  const full = { ...LONGHORN_DEFAULTS, ...Object.fromEntries(given) } as FullSchedulingSettings;
  for (const { option } of LEVELS) {
    const value = full[option];
    if (value !== AntiAffinity.ENABLED && value !== AntiAffinity.DISABLED) {
      throw invalidProp(where, prefix + option, value,
        'must be ENABLED or DISABLED: a global setting has no level above it to defer to (IGNORED is for volumes)');
    }
  }
  if (full.replicaAutoBalance === LonghornReplicaAutoBalance.IGNORED) {
    throw invalidProp(where, prefix + 'replicaAutoBalance', full.replicaAutoBalance, 'must not be IGNORED: IGNORED is for volumes');
  }
  return full;
}

/** One anti-affinity level as resolved for a volume: hard or soft, and which option or setting decided. */
export interface ResolvedLevel {
  readonly level: AntiAffinityLevel;
  readonly hard: boolean;
  /** e.g. `replicaDiskSoftAntiAffinity=disabled` or `the global replica-soft-anti-affinity=false`. */
  readonly origin: string;
  /** The volume option that changes it, e.g. `replicaDiskSoftAntiAffinity`. */
  readonly option: string;
}

/** A volume's scheduling options with every fallback resolved. */
export interface ResolvedScheduling {
  readonly replicas: number;
  readonly levels: ResolvedLevel[];
  readonly nodeSelector: string[];
  readonly diskSelector: string[];
  readonly dataEngine: LonghornDataEngine;
  readonly dataLocality: LonghornDataLocality;
  readonly replicaAutoBalance: LonghornReplicaAutoBalance;
  readonly settings: FullSchedulingSettings;
}

/** How `r` resolved anti-affinity level `level`. */
export function resolvedLevel(r: ResolvedScheduling, level: AntiAffinityLevel): ResolvedLevel {
  return r.levels.find((x) => x.level === level)!;
}

/** Validates a volume's scheduling options and resolves `IGNORED` and unset values against the settings. */
export function resolveScheduling(where: string, options: LonghornReplicaScheduling): ResolvedScheduling {
  const settings = resolveSettings(where, options.settings);
  const replicas = options.numberOfReplicas ?? settings.defaultReplicaCount;

  const levels = LEVELS.map(({ level, option, setting }): ResolvedLevel => {
    const own = options[option];
    if (own === AntiAffinity.ENABLED || own === AntiAffinity.DISABLED) {
      return { level, hard: own === AntiAffinity.DISABLED, origin: `${option}=${own}`, option };
    }
    const hard = settings[option] === AntiAffinity.DISABLED;
    return { level, hard, origin: `the global ${setting}=${!hard}`, option };
  });

  const dataLocality = options.dataLocality ?? settings.defaultDataLocality;
  if (dataLocality === LonghornDataLocality.STRICT_LOCAL && replicas !== 1) {
    throw invalidProp(where, 'numberOfReplicas', replicas,
      'must be 1 with dataLocality strict-local: Longhorn keeps the only replica on the node the volume is attached to');
  }
  const followsSetting = options.replicaAutoBalance === undefined
    || options.replicaAutoBalance === LonghornReplicaAutoBalance.IGNORED;
  const autoBalance = followsSetting ? settings.replicaAutoBalance : options.replicaAutoBalance;
  const dataEngine = options.dataEngine ?? LonghornDataEngine.V1;

  return {
    replicas,
    levels,
    nodeSelector: checkTags(where, 'nodeSelector', options.nodeSelector ?? []),
    diskSelector: checkTags(where, 'diskSelector', options.diskSelector ?? []),
    dataEngine,
    dataLocality,
    replicaAutoBalance: autoBalance,
    settings,
  };
}

/**
 * Validates Longhorn tags (of a selector or of a node or disk): non-empty, unique, and free of commas and
 * whitespace (a StorageClass joins selector tags with commas).
 */
export function checkTags(where: string, prop: string, tags: string[]): string[] {
  if (!Array.isArray(tags)) throw invalidProp(where, prop, tags, 'must be a list of tags');
  tags.forEach((tag, i) => {
    if (typeof tag !== 'string' || tag === '' || /[,\s]/.test(tag)) {
      throw invalidProp(where, `${prop}[${i}]`, tag, 'must be a non-empty tag without commas or whitespace');
    }
    if (tags.indexOf(tag) !== i) {
      throw invalidProp(where, `${prop}[${i}]`, tag, `duplicates ${prop}[${tags.indexOf(tag)}]`);
    }
  });
  return [...tags];
}
