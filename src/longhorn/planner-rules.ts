/**
 * Longhorn's disk rules (capacity, tags, the domain a disk is in at each level) and the bookkeeping of one
 * planning run: what the replica planner asks of each disk.
 */
import { InventoryDisk } from './inventory';
import { AntiAffinityLevel, ResolvedScheduling } from './options';
import { formatBytes } from '../kubernetes/quantity';

export type Level = AntiAffinityLevel;

export interface Placed {
  readonly disk: InventoryDisk;
  readonly existing: boolean;
}

/** Mutable bookkeeping of one planning run. */
export class State {
  public readonly placed: Placed[] = [];
  private readonly added = new Map<InventoryDisk, number>();

  constructor(private readonly size: number) {}

  public place(disk: InventoryDisk, existing: boolean): void {
    this.placed.push({ disk, existing });
    // Existing replicas are already in the disk's `scheduled`.
    if (!existing) this.added.set(disk, (this.added.get(disk) ?? 0) + this.size);
  }

  /** Bytes scheduled to the disk so far (other volumes' replicas and this plan's new ones). */
  public scheduled(disk: InventoryDisk): number {
    return disk.scheduled + (this.added.get(disk) ?? 0);
  }

  public usedZones(): Set<string> {
    return new Set(this.placed.map((p) => p.disk.zone));
  }

  public usedNodes(): Set<string> {
    return new Set(this.placed.map((p) => p.disk.node));
  }

  public replicasOn(disk: InventoryDisk): number {
    return this.placed.filter((p) => p.disk === disk).length;
  }
}

/** Why a disk cannot take one more replica of `size` bytes (Longhorn's two capacity conditions), or undefined. */
export function capacityProblem(
  disk: InventoryDisk,
  scheduled: number,
  size: number,
  r: ResolvedScheduling,
): string | undefined {
  const id = `${disk.node}/${disk.name}`;
  if (disk.capacity <= 0) return `${id} has no capacity`;
  if (disk.available <= 0) return `${id} has no free space`;
  const minimal = Math.trunc(disk.capacity * r.settings.storageMinimalAvailablePercentage / 100);
  if (disk.available <= minimal) {
    return `${id} has ${formatBytes(disk.available)} free, at or below the minimal ${formatBytes(minimal)} ` +
      `(storage-minimal-available-percentage ${r.settings.storageMinimalAvailablePercentage}% of ${formatBytes(disk.capacity)})`;
  }
  const limit = Math.trunc((disk.capacity - disk.reserved) * r.settings.storageOverProvisioningPercentage / 100);
  if (size + scheduled > limit) {
    return `${id} has ${formatBytes(scheduled)} scheduled; another ${formatBytes(size)} exceeds the ${formatBytes(limit)} allowed ` +
      `(storage-over-provisioning-percentage ${r.settings.storageOverProvisioningPercentage}% of capacity ${formatBytes(disk.capacity)} ` +
      `minus reserved ${formatBytes(disk.reserved)})`;
  }
  return undefined;
}

/** Longhorn's tag rule: every selector tag present; an empty selector matches untagged objects, or all if allowed. */
export function tagsMatch(tags: string[], selector: string[], allowEmpty: boolean): boolean {
  if (selector.length === 0) return allowEmpty || tags.length === 0;
  return selector.every((t) => tags.includes(t));
}

/** The zone, node or disk that `disk` is in at `level`. */
export function domainOf(level: Level, disk: InventoryDisk): string {
  if (level === AntiAffinityLevel.ZONE) return disk.zone;
  return level === AntiAffinityLevel.NODE ? disk.node : `${disk.node}/${disk.name}`;
}
