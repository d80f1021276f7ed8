/** `runCli`: the program run against the tests' in-memory API server (test/memory-kube-api.ts) in virtual time. */
import { main } from '../../src/cli/main';
import { MemoryKubeApi } from '../memory-kube-api';

/** What a run of the program gave. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** When `runCli`'s virtual clock starts. */
export const CLI_START_MS = Date.parse('2026-11-27T10:00:00Z');

/**
 * `cdk8s-zones <argv>` against `api`: its exit code and output. Time is virtual (each sleep moves the clock); with
 * `interruptAfterSleeps`, Ctrl-C comes after that many sleeps.
 */
export async function runCli(api: MemoryKubeApi, argv: string[], interruptAfterSleeps = Infinity): Promise<CliRun> {
  let now = CLI_START_MS;
  let sleeps = 0;
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdin: process.stdin,
    stdout: (s) => { stdout += s; },
    stderr: (s) => { stderr += s; },
    connect: () => api,
    now: () => now,
    sleep: async (ms) => { now += ms; sleeps++; },
    interrupted: () => sleeps >= interruptAfterSleeps,
  });
  return { code, stdout, stderr };
}
