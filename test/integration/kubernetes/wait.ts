/**
 * Waiting on conditions, never on fixed sleeps: the machine running the tests may be loaded, so every
 * wait polls a condition with a generous deadline and, on timeout, says what it waited for and what it saw.
 */

export interface WaitOptions {
  /** @default 120_000 */
  readonly timeoutMs?: number;
  /** @default 250 */
  readonly intervalMs?: number;
}

/** Thrown by a check to stop waiting at once (a crashed process, a rejection): waiting longer cannot help. */
export class WaitAborted extends Error {}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it returns `{ done: true, value }`; on timeout throws an error naming `what` and the
 * last `state` the check reported (or the last error it threw). A `WaitAborted` thrown by `check` ends the
 * wait at once.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<{ done: boolean; value?: T; state?: string }>,
  opts: WaitOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  let last = 'not checked yet';
  for (;;) {
    try {
      const r = await check();
      if (r.done) return r.value as T;
      last = r.state ?? 'condition not met';
    } catch (err: any) {
      if (err instanceof WaitAborted) throw err;
      last = `error: ${err.message ?? err}`;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; last seen: ${last}`);
    await sleep(opts.intervalMs ?? 250);
  }
}
