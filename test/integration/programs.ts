/**
 * Real programs for the integration tier live in .cache/bin/ (git-ignored), put there by
 * `npm run test:integration:setup`. A missing program fails the test with a clear message; it never skips.
 */
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT } from './shared';

export const CACHE_DIR = path.join(REPO_ROOT, '.cache');
export const BIN_DIR = path.join(CACHE_DIR, 'bin');

/** The absolute path of a cached program; throws when `npm run test:integration:setup` has not provided it. */
export function programPath(name: string, dir = BIN_DIR): string {
  const file = path.join(dir, name);
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new Error(`${name} is not installed at ${file}: run \`npm run test:integration:setup\` ` +
      '(it builds or installs every program the integration tier needs)');
  }
  return file;
}
