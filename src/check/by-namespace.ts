/**
 * The items of a list in one namespace, in the list's order, from an index made once per list (and made again if
 * the list grew). The check looks up, for every workload, the budgets and the other workloads of its namespace:
 * scanning the whole list each time made those lookups grow with the square of the workloads (bench/check.ts).
 */
interface Index {
  /** The list's length when it was indexed. */
  readonly size: number;
  readonly index: Map<string | undefined, unknown[]>;
}
const indexes = new WeakMap<readonly unknown[], Index>();

export function inNamespace<T extends { readonly namespace?: string }>(
  items: readonly T[], namespace: string | undefined,
): readonly T[] {
  let made = indexes.get(items);
  if (made === undefined || made.size !== items.length) {
    const index = new Map<string | undefined, T[]>();
    for (const item of items) {
      const same = index.get(item.namespace);
      if (same === undefined) index.set(item.namespace, [item]);
      else same.push(item);
    }
    made = { size: items.length, index };
    indexes.set(items, made);
  }
  return (made.index.get(namespace) ?? []) as readonly T[];
}
