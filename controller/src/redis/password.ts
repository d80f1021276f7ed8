/**
 * The Redis password as the manager sends it: every byte of the Secret key (or of `--password-file`), as
 * the pods' init container reads it, a trailing newline included. ioredis sends a string as UTF-8, so a
 * value that is not UTF-8 could never match; it is refused with a reason rather than failing as NOAUTH.
 */
export function passwordFromBytes(bytes: Buffer, what: string): string {
  if (bytes.length === 0) throw new Error(`${what} is empty: the Redis pods refuse to start without a password`);
  const password = bytes.toString('utf8');
  if (!Buffer.from(password, 'utf8').equals(bytes)) throw new Error(`${what} is not valid UTF-8, which the manager cannot send as a password`);
  if (password.includes('\0')) throw new Error(`${what} holds a NUL byte, which the Redis pods refuse`);
  return password;
}
