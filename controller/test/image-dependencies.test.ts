/**
 * The controller image (controller/Dockerfile) installs only the controller package's production
 * dependencies. Every package the controller's code reaches (its own files and the library modules it
 * imports from src/) must therefore be a Node.js built-in or one of those dependencies: importing, say, a
 * construct module that needs `cdk8s` works in the repository and crashes in the image.
 */
import * as fs from 'fs';
import { builtinModules } from 'module';
import * as path from 'path';
import { packageName, reachableFrom } from '../../test/import-graph';

const CONTROLLER = path.resolve(__dirname, '..');

test('everything the controller imports is a Node.js built-in or a production dependency of its package', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(CONTROLLER, 'package.json'), 'utf8'));
  const allowed = new Set([...Object.keys(manifest.dependencies ?? {}), ...builtinModules]);
  const packages = new Map<string, string>();
  for (const [file, imports] of reachableFrom(path.join(CONTROLLER, 'src', 'main.ts'))) {
    for (const p of imports.packages) packages.set(p, path.relative(CONTROLLER, file));
  }
  // the walk follows dynamic imports too: it reaches the kubeconfig loader through the run command
  expect(packages.get('yaml')).toBe('src/kube/config.ts');
  const missing = [...packages].filter(([name]) => !allowed.has(packageName(name)));
  expect(missing.map(([name, file]) => `${name} (imported by ${file})`)).toEqual([]);
});
