/**
 * What `cdk8s-zones check` reads: the inventory its flags describe (equal nodes, a file, or a cluster's nodes)
 * and the manifests (files, directories, stdin). What it cannot read is bad input (exit 2), naming the file.
 */
import * as fs from 'fs';
import * as path from 'path';
import { DEFAULT_NODES_PER_ZONE } from './check-help';
import { clusterConnection, inventoryProps, listNodes } from '../check/cluster-nodes';
import { InventoryTaint, ZoneInventory } from '../check/inventory';
import { ManifestObject, ManifestTextError, parseManifests, parseSingleDocument } from '../check/manifest-text';
import { UsageError } from '../shared/errors';

const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** The flags that describe the nodes without a cluster. */
export interface InventoryArgs {
  readonly zones?: readonly string[];
  readonly nodesPerZone?: number;
  readonly nodeLabels?: { readonly [key: string]: string };
  readonly nodeTaints?: readonly InventoryTaint[];
  readonly inventory?: string;
}

/** The nodes of the cluster `--kubeconfig FILE` reaches (its current context), as an inventory. */
export async function clusterInventory(file: string, zones: readonly string[] | undefined): Promise<ZoneInventory> {
  try {
    return new ZoneInventory(inventoryProps(await listNodes(clusterConnection(file)), zones && [...zones]));
  } catch (e) {
    throw new UsageError(`--kubeconfig ${file}: ${(e as Error).message}`);
  }
}

/** The inventory the flags describe: `--inventory FILE`, or N equal nodes per zone (3 unless told). */
export function loadInventory(args: InventoryArgs, readFile: (file: string) => string): ZoneInventory {
  const where = args.inventory === undefined ? '--zones' : `--inventory ${args.inventory}`;
  try {
    if (args.inventory === undefined) {
      const { zones, nodesPerZone = DEFAULT_NODES_PER_ZONE, nodeLabels, nodeTaints } = args;
      const taints = nodeTaints && [...nodeTaints];
      return new ZoneInventory({ zones: [...zones!], nodesPerZone, nodeLabels, nodeTaints: taints });
    }
    const value = readDocument(args.inventory, readText(args.inventory, readFile));
    return new ZoneInventory(inventoryProps(value, args.zones && [...args.zones]));
  } catch (e) {
    if (e instanceof UsageError) throw e; // unreadable or not YAML: the message names the file
    throw new UsageError(`${where}: ${(e as Error).message}`);
  }
}

/** The objects of one input: a file, a directory (its manifest files, recursively, sorted), or `-` (stdin). */
export async function readInput(
  input: string,
  stdin: NodeJS.ReadableStream,
  readFile: (file: string) => string,
): Promise<ManifestObject[]> {
  if (input === '-') return readManifests('stdin', await readStream(stdin));
  let stat: fs.Stats;
  try {
    stat = fs.statSync(input);
  } catch (e) {
    throw new UsageError(`cannot read ${input}: ${(e as Error).message}`);
  }
  const files = stat.isDirectory() ? manifestFiles(input) : [input];
  return files.flatMap((file) => readManifests(file, readText(file, readFile)));
}

/** The manifest files under `dir`, recursively, in sorted order (the same on every machine). */
function manifestFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    const entries = fs.readdirSync(d, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (MANIFEST_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) found.push(p);
    }
  };
  walk(dir);
  return found;
}

/** The objects of a manifest text; text it cannot read is bad input (exit 2), with the file and line. */
function readManifests(file: string, text: string): ManifestObject[] {
  try {
    return parseManifests(file, text);
  } catch (e) {
    throw e instanceof ManifestTextError ? new UsageError(e.message) : e;
  }
}

function readDocument(file: string, text: string): unknown {
  try {
    return parseSingleDocument(file, text);
  } catch (e) {
    throw e instanceof ManifestTextError ? new UsageError(e.message) : e;
  }
}

function readText(file: string, readFile: (file: string) => string): string {
  try {
    return readFile(file);
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c) => chunks.push(typeof c === 'string' ? Buffer.from(c) : c));
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', (e) => reject(new UsageError(`cannot read stdin: ${e.message}`)));
  });
}
