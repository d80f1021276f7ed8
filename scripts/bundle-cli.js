// Bundles the `cdk8s-zones` program (src/cli/main.ts) into one file, the package's bin: a process that loads
// one file starts faster than one that loads the ~85 compiled modules of lib/ it imports (bench/check.ts,
// "Zone check"). Run by the compile task, after jsii (.projenrc.ts).
//
//   node scripts/bundle-cli.js [OUTFILE]
//
// OUTFILE defaults to lib/cli/cdk8s-zones.js: two folders below the package's root, as lib/shared/ is, so
// shared/package-version.ts finds package.json (the version a release stamps before it builds) from it too.
// js-yaml is bundled in. The peer dependencies (cdk8s, cdk8s-plus-28, constructs) stay outside: the program
// never loads them (shared/peers.ts); a library module that needs them requires them from the user's install.
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const outfile = path.resolve(process.argv[2] ?? path.join(root, 'lib', 'cli', 'cdk8s-zones.js'));
const peers = Object.keys(require(path.join(root, 'package.json')).peerDependencies);

esbuild.build({
  entryPoints: [path.join(root, 'src', 'cli', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  external: peers,
  metafile: true,
  legalComments: 'eof',
  logLevel: 'warning',
}).then(({ metafile }) => {
  const inputs = Object.keys(metafile.inputs);
  const packages = [...new Set(inputs.flatMap((i) => i.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? []))];
  const unexpected = packages.filter((p) => p !== 'js-yaml');
  if (unexpected.length > 0) throw new Error(`the CLI's bundle pulled in ${unexpected.join(', ')}: only js-yaml was expected`);
  fs.chmodSync(outfile, 0o755);
  const bytes = fs.statSync(outfile).size;
  console.log(`bundled ${inputs.length} modules into ${path.relative(process.cwd(), outfile)} (${(bytes / 1024).toFixed(0)} KiB)`);
}).catch((err) => {
  console.error(err.message);
  process.exit(1);
});
