import { createHash } from 'crypto';

/**
 * A short, stable hash of a configuration a pod template mounts (the value of `CONFIG_HASH_ANNOTATION`):
 * a new configuration changes the template, so the workload rolls its pods.
 */
export function configHash(config: string): string {
  return createHash('sha256').update(config).digest('hex').slice(0, 16);
}
