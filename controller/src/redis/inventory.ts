/**
 * The static inventory of the `redis` CLI: the planned layout plus where each node runs, as JSON:
 *
 *     { "layout": <RedisShardLayout.toJson()>,
 *       "nodes": [{ "name": "zone-a-0", "zone": "zone-a", "address": "127.0.0.1:7000" }] }
 *
 * Nodes the layout does not name are retired (drained, forgotten, reset); the password comes from
 * `--password-file`, never from this file.
 */
import { InventoryNode } from './model';
import { RedisShardLayout } from '../../../src/redis/layout';

export interface StaticInventory {
  readonly layout: RedisShardLayout;
  readonly nodes: InventoryNode[];
}

export function parseInventory(text: string): StaticInventory {
  const data = JSON.parse(text);
  if (!data || typeof data !== 'object' || !data.layout || !Array.isArray(data.nodes)) {
    throw new Error('redis inventory: expected {"layout": {...}, "nodes": [{"name", "zone", "address"}]}');
  }
  const layout = RedisShardLayout.fromJson(JSON.stringify(data.layout));
  const nodes: InventoryNode[] = data.nodes.map((n: any, i: number) => {
    for (const key of ['name', 'zone', 'address']) {
      if (typeof n?.[key] !== 'string' || n[key] === '') throw new Error(`redis inventory: nodes[${i}].${key} must be a non-empty string`);
    }
    if (!/^[^\s]+:\d+$/.test(n.address)) throw new Error(`redis inventory: nodes[${i}].address=${JSON.stringify(n.address)} must be host:port`);
    const planned = layout.nodes.find((p) => p.name === n.name);
    if (planned && planned.zone !== n.zone) {
      throw new Error(`redis inventory: node ${n.name} runs in zone ${n.zone} but the layout plans it in ${planned.zone}`);
    }
    return { name: n.name, zone: n.zone, address: n.address };
  });
  const names = nodes.map((n) => n.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`redis inventory: node ${dup} is listed twice`);
  return { layout, nodes };
}
