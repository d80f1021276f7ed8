/** Polls `probe` every 20 ms until `done` holds of its value (returned), or throws after `timeoutMs` naming `what`. */
export async function until<T>(
  what: string, probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
