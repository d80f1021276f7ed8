/**
 * The Redis manager run against the tier's processes: the controller's CLI (compiled once) and a manager kept
 * converging.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as path from 'path';
import { ClusterState } from '../../../controller/src/redis/decide';
import { RedisClusterManager } from '../../../controller/src/redis/manager';
import { REPO_ROOT } from '../shared';

/** Runs the compiled controller CLI (built once per test file by `buildController`). */
export function runCli(args: string[]): { code: number | null; state?: ClusterState; problems: string[] } {
  const r = spawnSync('node', [CLI, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const problems = r.stderr.split('\n').filter((l) => /"level":"(warn|error)"/.test(l));
  return { code: r.status, state: r.stdout.trim() ? JSON.parse(r.stdout) : undefined, problems };
}

const CLI = path.join(REPO_ROOT, 'controller', 'lib', 'controller', 'src', 'main.js');

export function buildController(): void {
  execFileSync('npx', ['tsc', '-p', path.join(REPO_ROOT, 'controller', 'tsconfig.json')], { cwd: REPO_ROOT, stdio: 'inherit' });
}


/**
 * Runs the manager as the controller does, but without pause: a `converge` pass after another until
 * stopped, so it sees a zone loss as it happens. Resolves `stop()` once the pass under way has ended.
 */
export function keepConverging(manager: RedisClusterManager): { stop(): Promise<void> } {
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      await manager.converge({ timeoutMs: 5000 }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}
