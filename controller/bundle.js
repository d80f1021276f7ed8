// Bundles the controller into one file for its image (controller/Dockerfile): src/main.ts, the library
// modules it imports and its runtime dependencies, nothing else.
//
//   node controller/bundle.js [OUTFILE] [--node /nodejs/bin/node]
//
// OUTFILE defaults to controller/lib/bundle/controller.js. With --node, the `#!/usr/bin/env -S node FLAG`
// line of src/main.ts becomes `#!/nodejs/bin/node FLAG`, so the file runs where there is no /usr/bin/env
// (a distroless base). The dynamic import()s stay lazy: esbuild turns each into a module initialised on
// first use, so the process only runs the code of the commands it is given.
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const here = __dirname;
const args = process.argv.slice(2);
const nodeAt = args.includes('--node') ? args.splice(args.indexOf('--node'), 2)[1] : undefined;
const outfile = path.resolve(args[0] ?? path.join(here, 'lib', 'bundle', 'controller.js'));
// The controller's runtime dependencies: each must end up inside the bundle (the image has no node_modules).
const dependencies = Object.keys(require('./package.json').dependencies);

// kube/config.ts loads the YAML parser with a require made by createRequire (jest cannot run import()),
// which esbuild cannot follow: a plain require() is bundled and still runs only when first called.
const lazyYaml = {
  name: 'lazy-yaml',
  setup(build) {
    build.onLoad({ filter: /[\\/]kube[\\/]config\.ts$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      const rewritten = source.replace("requireLazily('yaml')", "require('yaml')");
      if (rewritten === source) throw new Error(`${args.path} no longer calls requireLazily('yaml'): update controller/bundle.js`);
      return { contents: rewritten, loader: 'ts' };
    });
  },
};

/** `code` with its `#!/usr/bin/env -S node FLAGS` line replaced by `#!NODE FLAGS`. */
function withInterpreter(code, node) {
  const [shebang, ...rest] = code.split('\n');
  const words = shebang.replace(/^#!\s*/, '').split(/\s+/);
  if (!shebang.startsWith('#!') || !words.includes('node')) throw new Error(`the bundle starts with ${shebang}, not a node #! line`);
  const flags = words.slice(words.indexOf('node') + 1);
  // Linux passes everything after the interpreter as one argument: more than one flag needs env -S
  if (flags.length > 1) throw new Error(`${shebang}: a #!${node} line can pass one flag, not ${flags.length}`);
  return [`#!${[node, ...flags].join(' ')}`, ...rest].join('\n');
}

esbuild.build({
  entryPoints: [path.join(here, 'src', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  plugins: [lazyYaml],
  metafile: true,
  legalComments: 'eof',
  logLevel: 'warning',
}).then(({ metafile }) => {
  const inputs = Object.keys(metafile.inputs);
  const missing = dependencies.filter((d) => !inputs.some((i) => i.includes(`node_modules/${d}/`)));
  if (missing.length > 0) throw new Error(`the bundle lacks the dependencies ${missing.join(', ')}`);
  if (nodeAt !== undefined) fs.writeFileSync(outfile, withInterpreter(fs.readFileSync(outfile, 'utf8'), nodeAt));
  fs.chmodSync(outfile, 0o755);
  const bytes = metafile.outputs[path.relative(process.cwd(), outfile)]?.bytes ?? fs.statSync(outfile).size;
  console.log(`bundled ${inputs.length} modules into ${outfile} (${(bytes / 1024 / 1024).toFixed(2)} MB)`);
}).catch((err) => {
  console.error(err.message);
  process.exit(1);
});
