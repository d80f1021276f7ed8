/**
 * A tiny benchmark harness: warm up, repeat, report the median. Absolute times on shared machines are
 * noisy, so every report compares cases measured side by side in the same run (ratios).
 */
import { performance } from 'perf_hooks';

export interface Timing {
  readonly name: string;
  readonly reps: number;
  readonly medianMs: number;
  readonly p10Ms: number;
  readonly p90Ms: number;
}

/** One case of a side-by-side measurement. */
export interface BenchCase {
  readonly name: string;
  readonly fn: () => void;
}

/**
 * Times every case `reps` times, interleaved (each repetition runs every case once, in turn), so that
 * drift in machine load hits all cases alike; reports each case's median and spread.
 */
export function measureSideBySide(cases: BenchCase[], opts: { warmup?: number; reps?: number } = {}): Timing[] {
  const warmup = opts.warmup ?? 3;
  const reps = opts.reps ?? 40;
  for (let i = 0; i < warmup; i++) cases.forEach((c) => c.fn());
  const samples = cases.map(() => [] as number[]);
  for (let i = 0; i < reps; i++) {
    cases.forEach((c, j) => {
      const start = performance.now();
      c.fn();
      samples[j].push(performance.now() - start);
    });
  }
  return cases.map((c, j) => summarize(c.name, samples[j]));
}

function summarize(name: string, samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { name, reps: sorted.length, medianMs: at(0.5), p10Ms: at(0.1), p90Ms: at(0.9) };
}

/** One case of a side-by-side measurement of something asynchronous (a real program doing work). */
export interface AsyncBenchCase {
  readonly name: string;
  /**
   * Runs once; returns the milliseconds to record when only part of the run is the measured work (else the whole run is
   * timed).
   */
  readonly fn: () => Promise<number | void>;
}

/** `measureSideBySide` for asynchronous cases, run one at a time (never concurrently), interleaved. */
export async function measureSideBySideAsync(
  cases: AsyncBenchCase[],
  opts: { warmup?: number; reps?: number } = {},
): Promise<Timing[]> {
  for (let i = 0; i < (opts.warmup ?? 1); i++) for (const c of cases) await c.fn();
  const samples = cases.map(() => [] as number[]);
  for (let i = 0; i < (opts.reps ?? 5); i++) {
    for (const [j, c] of cases.entries()) {
      const start = performance.now();
      const measured = await c.fn();
      samples[j].push(typeof measured === 'number' ? measured : performance.now() - start);
    }
  }
  return cases.map((c, j) => summarize(c.name, samples[j]));
}

/** A markdown table of timings with each one's ratio to `baseline`. */
export function timingTable(timings: Timing[], baseline: Timing): string {
  const rows = timings.map((t) => {
    const ratioToBaseline = (t.medianMs / baseline.medianMs).toFixed(2);
    return `| ${t.name} | ${t.reps} | ${t.medianMs.toFixed(2)} | ${t.p10Ms.toFixed(2)} – ${t.p90Ms.toFixed(2)} | ${ratioToBaseline} |`;
  });
  return ['| case | reps | median ms | p10 – p90 ms | ratio to baseline |', '| --- | ---: | ---: | ---: | ---: |', ...rows].join('\n');
}

/** One section of bench/results.md. */
export interface BenchSection {
  readonly title: string;
  readonly body: string;
}
