import { cdk8s, javascript, typescript } from 'projen';
import { UpdateSnapshot } from 'projen/lib/javascript';

// Versions known to work together on Node.js 20 (see docs/architecture.md, "Toolchain").
const CDK8S_VERSION = '2.70.97';
const CONSTRUCTS_VERSION = '10.3.2';
const CDK8S_PLUS_VERSION = '2.5.6';

const project = new cdk8s.ConstructLibraryCdk8s({
  name: 'cdk8s-zones',
  description:
    'cdk8s constructs that turn failure domains (region > zone > node > disk) into Kubernetes manifests: zone spreading, zone-sharded Prometheus, zone-aware Loki, zonal Redis Cluster, zone-by-zone rollouts and Longhorn replica placement.',
  author: 'cdk8s-zones maintainers',
  authorAddress: 'maintainers@cdk8s-zones.dev',
  repositoryUrl: 'https://github.com/cdk8s-zones/cdk8s-zones.git',
  defaultReleaseBranch: 'main',
  packageManager: javascript.NodePackageManager.NPM,
  projenrcTs: true,
  keywords: ['cdk8s', 'kubernetes', 'topology', 'zones', 'high-availability'],

  // The registry serves only each package's `latest` dist-tag: pin what must not float.
  minNodeVersion: '20.0.0',
  typescriptVersion: '~5.9',
  jsiiVersion: '~5.9',
  cdk8sVersion: CDK8S_VERSION,
  constructsVersion: CONSTRUCTS_VERSION,
  peerDeps: [`cdk8s-plus-28@^${CDK8S_PLUS_VERSION}`],
  // cdk8s-plus-33 (what `cdk8s init` scaffolds) beside -28: the library is type-checked and tested against both.
  // esbuild bundles the controller into one file for its image.
  devDeps: ['fast-check@^4', 'yaml@^2', 'ajv@^8', 'cdk8s-plus-33@2.5.57', 'esbuild@0.28.2'],

  // jsii targets, named as the cdk8s packages are (cdk8s-plus-28: org.cdk8s.plus28, Org.Cdk8s.Plus28, cdk8s-plus-go).
  publishToPypi: { distName: 'cdk8s-zones', module: 'cdk8s_zones' },
  publishToMaven: { javaPackage: 'dev.cdk8szones', mavenGroupId: 'dev.cdk8s-zones', mavenArtifactId: 'cdk8s-zones' },
  publishToNuget: { dotNetNamespace: 'Cdk8sZones', packageId: 'Cdk8sZones' },
  publishToGo: { moduleName: 'github.com/cdk8s-zones/cdk8s-zones-go' },

  // CI is .ci/run on a clean checkout; no GitHub workflows, no release pipeline.
  github: false,
  release: false,
  depsUpgrade: false,
  sampleCode: false,
  docgen: true,

  jestOptions: {
    // Snapshots must be able to fail: `npm test` never rewrites them (use `npm run test:update`).
    updateSnapshot: UpdateSnapshot.NEVER,
    jestConfig: {
      testMatch: [
        '<rootDir>/test/**/*.test.ts',
        '<rootDir>/examples/**/*.test.ts',
        '<rootDir>/controller/test/**/*.test.ts',
      ],
      // Tests that start real programs or read ../shared live in their own tier.
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/integration/'],
      collectCoverage: false,
    },
  },
  gitignore: ['/.cache/', '/bench/out/'],
  // The tarball holds lib/, .jsii, README.md, API.md, LICENSE and package.json: nothing of the working tree's
  // caches (.cache/ holds test binaries and keys), tests, tooling or the controller (an image of its own).
  npmIgnoreOptions: {
    ignorePatterns: ['/examples/', '/bench/', '/scripts/', '/docs/', '/.ci/', '/controller/', '/.cache/', '/.dockerignore', '/dist/', '/.gitignore', '/.npmignore'],
  },
});

// The registry lacks most platform bindings of unrs-resolver 1.13 (an optional dependency of the eslint
// import resolver), which makes `npm ci` reject the lock file; 1.12.2 has all of them.
project.package.addField('overrides', { 'unrs-resolver': '1.12.2' });

// examples/, bench/ and scripts/ are plain TypeScript run by ts-node (not part of the jsii build):
// each gets a tsconfig so the editor, eslint and ts-node type-check them against src/.
for (const dir of ['examples', 'bench', 'scripts']) {
  new javascript.TypescriptConfig(project, {
    fileName: `${dir}/tsconfig.json`,
    extends: javascript.TypescriptConfigExtends.fromPaths(['../tsconfig.json']),
    compilerOptions: { rootDir: '..', noEmit: true },
    include: ['**/*.ts'],
  });
  project.eslint?.addLintPattern(dir);
}

// The main job: synthesize every example into dist/<example>/.
project.addTask('synth', {
  description: 'Synthesize every example in examples/ into dist/<example>/',
  exec: 'ts-node --project scripts/tsconfig.json scripts/synth-examples.ts',
});

// The integration tier: real programs (a Kubernetes control plane, Prometheus, redis-server, Loki) and
// the upstream CRDs beside the repository (../shared). Not part of `npm test`.
project.addTask('test:integration:setup', {
  description: 'Build or install every program the integration tier runs into .cache/ (idempotent, timed)',
  exec: 'bash test/integration/setup.sh',
});
project.addTask('test:integration', {
  description: 'Run the integration tier (needs npm run test:integration:setup and ../shared)',
  exec: 'jest --config test/integration/jest.config.json',
  receiveArgs: true,
});

project.addTask('bench', {
  description: 'Run the benchmarks in bench/ and write bench/results.md (`npm run bench <name>` runs one section)',
  exec: 'ts-node --project bench/tsconfig.json bench/run.ts',
  receiveArgs: true,
});

// The generated API reference must match the code: compile with jsii (which also enforces the jsii
// rules ts-jest does not) and compare a fresh API.md with the committed one.
const apiCheck = project.addTask('api:check', {
  description: 'Compile with jsii and fail if API.md is out of date',
});
apiCheck.exec('jsii --silence-warnings=reserved-word');
apiCheck.exec('jsii-docgen -o .cache/API.md');
apiCheck.exec('diff -u API.md .cache/API.md || (echo "API.md is out of date: run npx projen build (or npx projen compile && npx projen docgen)" >&2; exit 1)');
// First, so a jsii error fails fast and test/api-docs.test.ts can read the fresh assembly (.jsii).
project.testTask.prependSpawn(apiCheck);
// jsii prints a banner about Node.js 20's end of life on every run; the toolchain is pinned to Node 20 on purpose.
project.tasks.addEnvironment('JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION', '1');

// The library's default controller image carries the package's version: src/version.ts is written from
// package.json before every compile (a release bumps the version first).
project.preCompileTask.exec('node scripts/version-file.js');

// The runtime controller: a Node.js program (not jsii) in controller/, an npm workspace of this package so
// the root `npm ci` installs it. It imports the library's pure planners from ../src by relative path.
project.package.addField('workspaces', ['controller']);
const controller = new typescript.TypeScriptProject({
  parent: project,
  outdir: 'controller',
  name: 'cdk8s-zones-controller',
  description: 'The cdk8s-zones runtime controller: what only the cluster knows (zones of pods, zone-by-zone rollouts, per-zone eviction budgets).',
  defaultReleaseBranch: 'main',
  packageManager: javascript.NodePackageManager.NPM,
  minNodeVersion: '20.0.0',
  typescriptVersion: '~5.9',
  // The controller speaks to the API server with its own small client (src/kube/); yaml reads kubeconfig files.
  deps: ['yaml@2.9.1', 'prom-client@15.1.3', 'ioredis@6.0.0', 'node-forge@1.4.3'],
  devDeps: ['@types/node-forge@1.3.14'],
  entrypoint: 'lib/controller/src/main.js',
  bin: { 'cdk8s-zones-controller': 'lib/controller/src/main.js' },
  tsconfig: {
    compilerOptions: { rootDir: '..', outDir: 'lib', module: 'node20' as any /* TypeScript 5.9's mode; projen's type predates it */, moduleResolution: javascript.TypeScriptModuleResolution.NODE16, target: 'ES2022', lib: ['es2022'] },
    include: ['src/**/*.ts'],
  },
  sampleCode: false,
  github: false,
  release: false,
  depsUpgrade: false,
  jest: false, // the root's jest runs controller/test/
  eslint: false, // the root's eslint lints controller/
  projenrcTs: false,
  licensed: false,
  package: false,
});
// The workspace root installs the controller's dependencies; the subproject must not install on its own
// (that would create a second lock file and node_modules in controller/).
(controller.package as any).installDependencies = () => {}; // protected in projen; no public switch exists
project.eslint?.addLintPattern('controller/src');
project.eslint?.addLintPattern('controller/test');
// `npm test` type-checks and builds the controller too.
project.testTask.spawn(project.addTask('controller:compile', {
  description: 'Compile the runtime controller (controller/lib)',
  exec: 'tsc -p controller/tsconfig.json',
}));

project.synth();
