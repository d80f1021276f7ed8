/**
 * Helpers for the real programs the integration tier starts: free ports on 127.0.0.1, a sentinel that
 * stops a program when the test process goes away, even when it is killed, so a shared machine does not
 * collect orphans, and polling until a program answers.
 */
import { spawn } from 'child_process';
import * as net from 'net';

/** A port nothing listens on right now (another process may still take it before the program binds it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `host:port` can be listened on now. */
export async function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * Starts a sentinel (a small bash loop, detached and not waited for) that sends SIGTERM to `pid`, then
 * SIGKILL 10 s later, once this process has gone while `pid` still runs. The program itself stays this
 * process's child, so it can be signalled directly (SIGSTOP/SIGCONT included).
 */
export function stopWhenOrphaned(pid: number): void {
  const sentinel = spawn('bash', ['-c', [
    'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done',
    'if kill -0 "$2" 2>/dev/null; then kill -TERM "$2"; sleep 10; kill -KILL "$2" 2>/dev/null; fi',
  ].join('\n'), 'sentinel', String(process.pid), String(pid)], { stdio: 'ignore', detached: true });
  sentinel.unref();
}

/**
 * Polls `check` until it returns a value (not undefined), or fails after `timeoutMs` with `what` and the
 * last error `check` threw. `fatal` names a reason to stop at once (a program that exited).
 */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
  fatal: () => string | undefined = () => undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    const stop = fatal();
    if (stop !== undefined) throw new Error(`${what}: ${stop}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}
