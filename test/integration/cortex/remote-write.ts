/* eslint-disable no-bitwise */ // a wire format: tags, varints and length bytes are bit fields
/**
 * A Prometheus remote-write request body, as Cortex's distributor reads it (`POST /api/v1/push`): a protobuf
 * `WriteRequest` (timeseries = 1; a series' labels = 1 and samples = 2; a label's name = 1 and value = 2; a
 * sample's value = 1 (double) and timestamp = 2 (int64 ms)) in snappy's block format. The snappy body holds
 * the bytes as literals, uncompressed, which every snappy decoder reads.
 */

export interface Series {
  readonly labels: { readonly [name: string]: string };
  readonly samples: readonly { readonly value: number; readonly timestampMs: number }[];
}

export function remoteWriteBody(series: readonly Series[]): Buffer {
  const request = Buffer.concat(series.map((s) => field(1, timeSeries(s))));
  return snappyLiteral(request);
}

function timeSeries(s: Series): Buffer {
  // Prometheus sorts a series' labels by name; Cortex relies on it.
  const labels = Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.concat([
    ...labels.map(([name, value]) => field(1, Buffer.concat([
      field(1, Buffer.from(name)),
      field(2, Buffer.from(value)),
    ]))),
    ...s.samples.map((sample) => field(2, sampleBytes(sample.value, sample.timestampMs))),
  ]);
}

function sampleBytes(value: number, timestampMs: number): Buffer {
  const double = Buffer.alloc(8);
  double.writeDoubleLE(value);
  return Buffer.concat([Buffer.from([(1 << 3) | 1]), double, Buffer.from([2 << 3]), varint(BigInt(timestampMs))]);
}

/** A length-delimited field (wire type 2). */
function field(num: number, bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(num << 3) | 2]), varint(BigInt(bytes.length)), bytes]);
}

function varint(n: bigint): Buffer {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? byte | 0x80 : byte);
  } while (v > 0n);
  return Buffer.from(out);
}

/** Snappy's block format: the uncompressed length, then literal elements of at most 64 KiB each. */
function snappyLiteral(data: Buffer): Buffer {
  const parts: Buffer[] = [varint(BigInt(data.length))];
  for (let at = 0; at < data.length; at += 65536) {
    const chunk = data.subarray(at, at + 65536);
    const n = chunk.length - 1;
    // Tag 60 (<< 2, literal) with the length - 1 in the next 2 bytes, little-endian; under 60 it fits in the tag.
    parts.push(n < 60 ? Buffer.from([n << 2]) : Buffer.from([61 << 2, n & 0xff, n >> 8]), chunk);
  }
  return Buffer.concat(parts);
}
