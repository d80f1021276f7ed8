import { createHash } from 'crypto';
import { invalidProp } from '../shared/errors';
import { checkArg, Props } from '../shared/props';

/** Prometheus joins the values of a rule's `source_labels` with this separator unless the rule sets another. */
export const DEFAULT_SEPARATOR = ';';

/**
 * Prometheus's `hashmod` relabel action, in TypeScript: the MD5 of the value, its bytes 8 to 15 read as
 * a big-endian unsigned 64-bit integer, modulo `modulus`. Pure and exact (BigInt), so tests and the
 * benchmark can predict which shard Prometheus assigns a target to.
 */
export function hashmod(value: string, modulus: number): number {
  if (!Number.isSafeInteger(modulus) || modulus < 1) {
    throw invalidProp('hashmod', 'modulus', modulus, 'must be a positive integer');
  }
  const digest = createHash('md5').update(value, 'utf8').digest();
  return Number(digest.readBigUInt64BE(8) % BigInt(modulus));
}

/**
 * Reproduces `hashmod` in TypeScript, for tests, capacity planning and tools that need to know which
 * shard scrapes a target.
 */
export class Hashmod {
  /**
   * The bucket Prometheus's `hashmod` action puts `value` in (the source label values joined with the
   * rule's separator, `;` by default): `md5(value)[8..15]` as a big-endian uint64, modulo `modulus`.
   */
  public static bucket(value: string, modulus: number): number {
    checkArg('Hashmod.bucket', 'value', value, Props.string());
    return hashmod(value, modulus);
  }

  /** The bucket of several source label values, joined with `;` as Prometheus does by default. */
  public static bucketOfLabels(values: string[], modulus: number): number {
    checkArg('Hashmod.bucketOfLabels', 'values', values, Props.arrayOf(Props.string()));
    return hashmod(values.join(DEFAULT_SEPARATOR), modulus);
  }

  private constructor() {}
}
