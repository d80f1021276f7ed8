/**
 * A pool of real Prometheus processes, one per shard, reused across configurations (reload, not
 * restart), and the bookkeeping of which shard keeps which target of which scrape job.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { waitFor } from '../processes';
import { PrometheusProcess, TargetList } from './prometheus-process';

export class ShardPool {
  public readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-zones-prometheus-'));
  private readonly processes: PrometheusProcess[] = [];

  /** Loads `configs[i]` into process i, starting processes as needed (one at a time: a 2-core machine). */
  public async configure(configs: string[]): Promise<void> {
    for (const [i, config] of configs.entries()) {
      if (i < this.processes.length) await this.processes[i].reload(config);
      else this.processes.push(await PrometheusProcess.start(path.join(this.dir, `shard-${i}`), config));
    }
  }

  /**
   * Waits until process i lists every target of the jobs in `jobs[i]` (job name: number of targets), and
   * returns each process's target list. Active targets are counted by scrape pool; dropped ones only in
   * total, because Prometheus 2.42 may overwrite a target's `discoveredLabels` (seen: `job` gone,
   * `__tmp_hash` present) once its relabelling ran, so they do not reliably name the job. A reload
   * removes the old pools at once, so the totals cannot mix configurations.
   */
  public async targetsOnceDiscovered(jobs: { [job: string]: number }[], timeoutMs = 300_000): Promise<TargetList[]> {
    return Promise.all(jobs.map(async (expected, i) => {
      const want = { pools: Object.keys(expected).sort(), total: Object.values(expected).reduce((a, b) => a + b, 0) };
      let seen = {};
      try {
        return await waitFor(`shard ${i} to list every target`, timeoutMs, async () => {
          const list = await this.processes[i].targets();
          const got = {
            pools: [...new Set(list.active.map((t) => t.scrapePool))].sort(),
            total: list.active.length + list.dropped.length,
          };
          seen = got;
          return JSON.stringify(got) === JSON.stringify(want) ? list : undefined;
        });
      } catch (err) {
        throw new Error(`${(err as Error).message}: expected ${JSON.stringify(want)}, last saw ${JSON.stringify(seen)}`);
      }
    }));
  }

  public get size(): number {
    return this.processes.length;
  }

  /** Stops every process and removes the working folder. */
  public async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * For each job: the indices of the shards whose Prometheus keeps each target active, by the target's
 * final address (its `instance` label). The job comes from `scrapePool`: Prometheus 2.42 may overwrite
 * an active target's `discoveredLabels` with labels of its relabelling (seen here: `job` gone,
 * `__tmp_hash` present), so they are not read for active targets.
 */
export function activeShards(lists: TargetList[]): Map<string, Map<string, number[]>> {
  const byJob = new Map<string, Map<string, number[]>>();
  lists.forEach((list, shard) => {
    for (const t of list.active) {
      const job = t.scrapePool;
      const address = t.labels.instance;
      if (!byJob.has(job)) byJob.set(job, new Map());
      const byAddress = byJob.get(job)!;
      byAddress.set(address, [...(byAddress.get(address) ?? []), shard]);
    }
  });
  return byJob;
}
