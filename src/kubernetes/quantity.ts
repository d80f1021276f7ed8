import type { Size } from 'cdk8s';
import { invalidProp } from '../shared/errors';
import { cdk8sLazily } from '../shared/peers';

/**
 * Byte quantities in the Kubernetes notation ('10Gi', '500M', '1073741824'), parsed exactly (BigInt) and
 * returned as a safe JavaScript integer. Longhorn stores volume sizes and disk capacities in bytes.
 */

const BINARY: { [suffix: string]: bigint } = {
  Ki: 2n ** 10n, Mi: 2n ** 20n, Gi: 2n ** 30n, Ti: 2n ** 40n, Pi: 2n ** 50n, Ei: 2n ** 60n,
};
const DECIMAL: { [suffix: string]: bigint } = {
  '': 1n, 'k': 10n ** 3n, 'M': 10n ** 6n, 'G': 10n ** 9n, 'T': 10n ** 12n, 'P': 10n ** 15n, 'E': 10n ** 18n,
};
const QUANTITY = /^(\d+)(?:\.(\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

/** 2 MiB: Longhorn rounds every volume size up to a multiple of this. */
export const LONGHORN_SIZE_ALIGNMENT = 2 * 1024 * 1024;

/**
 * Parses a byte quantity. Throws, in the library's error format, for anything that is not a whole,
 * non-negative number of bytes: Kubernetes would round a fraction up, we refuse to guess.
 */
export function parseBytes(where: string, prop: string, value: string): number {
  const parsed = bytesOf(value);
  if (typeof parsed === 'string') throw invalidProp(where, prop, value, parsed);
  return parsed;
}

/**
 * Why `value` is not a cdk8s `Size` of a whole number of bytes (at least one, unless `zero` is allowed), or
 * undefined. Sizes are how props take volume and disk sizes; their bytes must be exact, as quantities are.
 */
export function sizeProblem(value: unknown, zero = false): string | undefined {
  if (!(value instanceof cdk8sLazily().Size)) return "must be a cdk8s Size, e.g. Size.gibibytes(10) (not a string such as '10Gi')";
  const bytes = value.toKibibytes({ rounding: cdk8sLazily().SizeRoundingBehavior.NONE }) * 1024;
  if (!Number.isFinite(bytes) || bytes < 0) return 'must be a finite, non-negative size';
  if (Math.abs(bytes - Math.round(bytes)) > 1e-6) return 'is not a whole number of bytes';
  if (Math.round(bytes) > Number.MAX_SAFE_INTEGER) return `is larger than ${Number.MAX_SAFE_INTEGER} bytes`;
  if (bytes === 0 && !zero) return 'must be larger than zero';
  return undefined;
}

/** The bytes of a Size that passed `sizeProblem`. */
export function sizeBytes(size: Size): number {
  return Math.round(size.toKibibytes({ rounding: cdk8sLazily().SizeRoundingBehavior.NONE }) * 1024);
}

/** A Size that passed `sizeProblem` as an exact Kubernetes quantity ('10Gi', '1536Mi'). */
export function sizeQuantity(size: Size): string {
  return formatBytes(sizeBytes(size));
}

/** The bytes of a quantity, or why it is not one. */
function bytesOf(value: unknown): number | string {
  if (typeof value !== 'string') return "must be a byte quantity string such as '10Gi', '500M' or '1073741824'";
  if (value.startsWith('-')) return 'must not be negative';
  const m = QUANTITY.exec(value);
  if (!m) {
    return "is not a byte quantity: use digits with an optional fraction and suffix (Ki, Mi, Gi, Ti, Pi, Ei, k, M, G, T, P, E) and no spaces, e.g. '10Gi'";
  }
  const [, whole, fraction = '', suffix = ''] = m;
  const unit = BINARY[suffix] ?? DECIMAL[suffix];
  const scale = 10n ** BigInt(fraction.length);
  const scaled = (BigInt(whole) * scale + BigInt(fraction || '0')) * unit;
  if (scaled % scale !== 0n) return 'is not a whole number of bytes';
  const bytes = scaled / scale;
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER)) return `is larger than ${Number.MAX_SAFE_INTEGER} bytes`;
  return Number(bytes);
}

/**
 * Renders bytes for messages, exactly, in the notation `parseBytes` reads: the largest binary suffix that
 * divides them ('10Gi'), else the largest decimal one ('3G'), else plain bytes.
 */
export function formatBytes(bytes: number): string {
  if (bytes === 0) return '0';
  for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki', 'E', 'P', 'T', 'G', 'M', 'k']) {
    const unit = Number(BINARY[suffix] ?? DECIMAL[suffix]);
    if (bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

/** A Kubernetes quantity (resource.Quantity): a decimal number with an optional SI, binary or exponent suffix. */
const ANY_QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

/**
 * Why `text` is not a non-negative Kubernetes quantity such as '500m', '1Gi' or '2' (resource requests, limits), or
 * undefined.
 */
export function quantityProblem(text: string): string | undefined {
  if (!ANY_QUANTITY.test(text.trim()) || text.trim() !== text) {
    return "is not a Kubernetes quantity: a number with an optional suffix (m, k, M, G, Ki, Mi, Gi, ... or an exponent), e.g. '500m' or '1Gi'";
  }
  if (text.startsWith('-') && !/^-0*(\.0*)?([a-zA-Z]|[eE][+-]?\d+)?$/.test(text)) return 'must not be negative';
  return undefined;
}

const QUANTITY_SUFFIX: { [suffix: string]: number } = {
  'm': 1e-3,
  '': 1,
  'k': 1e3,
  'M': 1e6,
  'G': 1e9,
  'T': 1e12,
  'P': 1e15,
  'E': 1e18,
  'Ki': 2 ** 10,
  'Mi': 2 ** 20,
  'Gi': 2 ** 30,
  'Ti': 2 ** 40,
  'Pi': 2 ** 50,
  'Ei': 2 ** 60,
};

/**
 * The value of a Kubernetes quantity as a number ('500m' -> 0.5, '1Gi' -> 1073741824), or undefined when it is none.
 */
export function quantityValue(text: string): number | undefined {
  if (typeof text !== 'string' || quantityProblem(text) !== undefined) return undefined;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(.*)$/.exec(text)!;
  const exponent = /^[eE]([+-]?\d+)$/.exec(m[2]);
  return Number(m[1]) * (exponent ? 10 ** Number(exponent[1]) : QUANTITY_SUFFIX[m[2]]);
}
