/**
 * Where the integration tier finds data that lives beside the repository, never inside it: the upstream
 * CRDs (../shared/crds). Override with CDK8S_ZONES_SHARED. A missing folder fails the test with a clear
 * message; it never skips it.
 */
import * as fs from 'fs';
import * as path from 'path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export function sharedDir(): string {
  const dir = process.env.CDK8S_ZONES_SHARED ?? path.resolve(REPO_ROOT, '..', 'shared');
  if (!fs.existsSync(path.join(dir, 'crds'))) {
    throw new Error(`the upstream CRDs are not at ${path.join(dir, 'crds')}: the integration tier needs the shared ` +
      'folder beside the repository (or CDK8S_ZONES_SHARED pointing at it)');
  }
  return dir;
}
