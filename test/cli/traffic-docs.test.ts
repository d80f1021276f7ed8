/**
 * docs/traffic.md runs as written: every `cdk8s-zones traffic` line of its sh blocks, on the examples it names
 * synthesized into dist/<example>/ (as `npm run synth` writes them), exits 0 or 1 (a report, not bad input); the web
 * example's report on the page is the one the command prints.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Document } from 'yaml';
import { main } from '../../src/cli/main';
import { synthesizeExample } from '../example-apps';
import { STANDARD_VARIANT } from '../example-variants';

const PAGE = fs.readFileSync(path.resolve(__dirname, '../../docs/traffic.md'), 'utf8');
const commands = [...PAGE.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
  .flatMap((block) => block[1].split('\n').filter((l) => l.startsWith('cdk8s-zones traffic ')));

let dist: string;
beforeAll(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'traffic-docs-'));
  const names = new Set(commands.flatMap((c) => [...c.matchAll(/dist\/([\w-]+)/g)].map((m) => m[1])));
  for (const name of names) {
    fs.mkdirSync(path.join(dist, name));
    const yaml = synthesizeExample(name, STANDARD_VARIANT).map((o) => new Document(o).toString()).join('---\n');
    fs.writeFileSync(path.join(dist, name, `${name}.k8s.yaml`), yaml);
  }
});
afterAll(() => fs.rmSync(dist, { recursive: true, force: true }));

async function run(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = line.split(/\s+/).slice(1).map((a) => a.replace(/^dist\//, `${dist}/`));
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdin: process.stdin,
    stdout: (s) => { stdout += s; },
    stderr: (s) => { stderr += s; },
  });
  return { code, stdout, stderr };
}

test('the page holds traffic commands (so the next tests check something)', () => {
  expect(commands.length).toBeGreaterThanOrEqual(3);
});

test.each(commands.map((c) => [c]))('%s runs as written', async (line) => {
  const result = await run(line);
  expect([result.stderr, [0, 1].includes(result.code)]).toEqual(['', true]);
});

test('the web example\'s report on the page is what the first command prints', async () => {
  const shown = /^```text\n([\s\S]*?)^```$/m.exec(PAGE)![1];
  expect((await run(commands[0])).stdout).toBe(shown);
});
