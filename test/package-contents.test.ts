/**
 * What `npm install cdk8s-zones` gets: the packed tarball holds the compiled library, its jsii assembly and its
 * docs, and nothing of the working tree (caches with test binaries and keys, tests, tooling, the controller); its
 * bin is the CLI's bundle (scripts/bundle-cli.js, made by the compile task and by `npm test` first).
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const BIN = path.join(ROOT, PACKAGE.bin['cdk8s-zones']);

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
  expect(files).toEqual(expect.arrayContaining(['lib/index.js', 'lib/index.d.ts', '.jsii', 'package.json', PACKAGE.bin['cdk8s-zones']]));
  // lib/ holds the compiled library only (no tests or sources compiled by accident).
  expect(files.filter((f) => f.startsWith('lib/') && !/\.(js|d\.ts)$/.test(f))).toEqual([]);
});

describe('the bin, cdk8s-zones', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });

  test('is the bundle: one file that loads no other module of lib/ or node_modules when it starts', () => {
    expect(PACKAGE.bin['cdk8s-zones']).toBe('lib/cli/cdk8s-zones.js');
    expect(fs.readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    // required as a module (not run): what it loads at the top, beside itself (its peers, cdk8s and cdk8s-plus-28,
    // are loaded only by checks of construct props the program never makes)
    const loaded = execFileSync(process.execPath, ['-e', `require(${JSON.stringify(BIN)}); console.log(JSON.stringify(Object.keys(require.cache)))`],
      { encoding: 'utf8' });
    expect(JSON.parse(loaded)).toEqual([BIN]);
  });

  test('prints the package\'s version', () => {
    const result = run(['--version']);
    expect(result).toMatchObject({ status: 0, stdout: `cdk8s-zones ${PACKAGE.version}\n`, stderr: '' });
  });

  test('checks a file: a Deployment spread over three zones passes; one replica fails, naming its rule', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-zones-bin-'));
    try {
      const deployment = (name: string, replicas: number, spread: string[]) => [
        'apiVersion: apps/v1', 'kind: Deployment', `metadata: { name: ${name}, namespace: shop }`, 'spec:',
        `  replicas: ${replicas}`, `  selector: { matchLabels: { app: ${name} } }`, '  template:',
        `    metadata: { labels: { app: ${name} } }`, '    spec:', ...spread, '      containers: [{ name: c, image: nginx }]', '',
      ].join('\n');
      const spread = [
        '      topologySpreadConstraints:',
        '        - { maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: { matchLabels: { app: web } } }',
      ];
      fs.writeFileSync(path.join(dir, 'safe.yaml'), deployment('web', 6, spread));
      fs.writeFileSync(path.join(dir, 'unsafe.yaml'), `${deployment('web', 6, spread)}---\n${deployment('single', 1, [])}`);
      const zones = ['--zones', 'zone-a,zone-b,zone-c'];
      const safe = run(['check', path.join(dir, 'safe.yaml'), ...zones]);
      expect(safe).toMatchObject({ status: 0, stderr: '' });
      expect(safe.stdout).toContain('shop/web');
      const unsafe = run(['check', path.join(dir, 'unsafe.yaml'), ...zones]);
      expect(unsafe.status).toBe(1);
      expect(unsafe.stdout).toContain('single-replica');
      expect(unsafe.stdout).toContain('shop/single');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
