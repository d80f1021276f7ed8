/**
 * What `npm install cdk8s-zones` gets: the packed tarball holds the compiled library, its jsii assembly and its
 * docs, and nothing of the working tree (caches with test binaries and keys, tests, tooling, the controller).
 */
import { execFileSync } from 'child_process';
import * as path from 'path';

const ROOT = path.join(__dirname, '..');

test('the npm tarball holds lib/, .jsii, README.md, API.md, CHANGELOG.md, LICENSE, package.json and the bundled js-yaml only', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
  // js-yaml (and argparse, its dependency) is bundled (jsii's rule for a dependency that is not a jsii library):
  // the zone check's CLI reads YAML
  const bundled = ['node_modules/js-yaml/', 'node_modules/argparse/'];
  const topLevel = ['.jsii', 'API.md', 'CHANGELOG.md', 'LICENSE', 'README.md', 'package.json'];
  const outside = files.filter((f) => !f.startsWith('lib/')
    && !bundled.some((b) => f.startsWith(b))
    && !topLevel.includes(f));
  expect(outside).toEqual([]);
  expect(files).toEqual(expect.arrayContaining(['lib/index.js', 'lib/index.d.ts', '.jsii', 'package.json']));
  // lib/ holds the compiled library only (no tests or sources compiled by accident).
  expect(files.filter((f) => f.startsWith('lib/') && !/\.(js|d\.ts)$/.test(f))).toEqual([]);
});
