import * as fs from 'fs';
import * as path from 'path';

let version: string | undefined;

/**
 * This package's version, from its package.json: two folders up from src/shared/ in the repository and from
 * lib/shared/ in the installed package (npm, or the JavaScript bundled in the Python package). A release sets it
 * before it builds, so what it publishes names the controller image it pushes with the same tag.
 */
export function packageVersion(): string {
  version ??= JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version as string;
  return version;
}
