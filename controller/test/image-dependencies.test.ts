/**
 * The controller image (controller/Dockerfile) installs only the controller package's production
 * dependencies. Every package the controller's code reaches (its own files and the library modules it
 * imports from src/) must therefore be a Node.js built-in or one of those dependencies: importing, say, a
 * construct module that needs `cdk8s` works in the repository and crashes in the image.
 */
import * as fs from 'fs';
import { builtinModules } from 'module';
import * as path from 'path';

const CONTROLLER = path.resolve(__dirname, '..');
/** Static imports and re-exports (`... from 'x'`) and dynamic imports (`import('x')`). */
const IMPORT = /(?:(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+|\bimport\()'([^']+)'/g;

/** Every bare module specifier reachable from `entry`, with a file that imports it. */
function reachablePackages(entry: string): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, ''));
        visit(fs.existsSync(`${target}.ts`) ? `${target}.ts` : path.join(target, 'index.ts'));
      } else {
        packages.set(specifier, path.relative(CONTROLLER, file));
      }
    }
  };
  visit(entry);
  return packages;
}

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`, `node:fs` -> `fs`. */
function packageName(specifier: string): string {
  const parts = specifier.replace(/^node:/, '').split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

test('everything the controller imports is a Node.js built-in or a production dependency of its package', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(CONTROLLER, 'package.json'), 'utf8'));
  const allowed = new Set([...Object.keys(manifest.dependencies ?? {}), ...builtinModules]);
  const packages = reachablePackages(path.join(CONTROLLER, 'src', 'main.ts'));
  // the walk follows dynamic imports too: it reaches the API client through the run command
  expect(packages.get('@kubernetes/client-node')).toMatch(/^src\/kube\//);
  const missing = [...packages].filter(([name]) => !allowed.has(packageName(name)));
  expect(missing.map(([name, file]) => `${name} (imported by ${file})`)).toEqual([]);
});
