/**
 * The main job: synthesizes every example in examples/ into dist/<example>/, exactly as `cdk8s synth`
 * would in that example's folder (each example's main.ts synthesizes into $CDK8S_OUTDIR).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '..');
const examplesDir = path.join(root, 'examples');
const only = process.argv.slice(2);

const examples = fs.readdirSync(examplesDir)
  .filter((name) => fs.existsSync(path.join(examplesDir, name, 'main.ts')))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();
if (examples.length === 0) {
  throw new Error(`no example found in ${examplesDir}${only.length ? ` matching ${only.join(', ')}` : ''}`);
}

for (const name of examples) {
  const outdir = path.join(root, 'dist', name);
  fs.rmSync(outdir, { recursive: true, force: true });
  const started = Date.now();
  execFileSync(process.execPath, [
    require.resolve('ts-node/dist/bin'), '--project', path.join(examplesDir, 'tsconfig.json'), '--transpile-only',
    path.join(examplesDir, name, 'main.ts'),
  ], { cwd: path.join(examplesDir, name), env: { ...process.env, CDK8S_OUTDIR: outdir }, stdio: 'inherit' });
  const files = fs.readdirSync(outdir).filter((f) => f.endsWith('.yaml'));
  if (files.length === 0) throw new Error(`example ${name} wrote no manifest into ${outdir}`);
  console.log(`synthesized ${name} -> ${path.relative(root, outdir)}/ (${files.join(', ')}) in ${Date.now() - started} ms`);
}
