/**
 * docs/traffic.md runs as written: every `cdk8s-zones traffic` line of its sh blocks, on the examples it names
 * synthesized into dist/<example>/ (as `npm run synth` writes them), exits 0 or 1 (a report, not bad input); the web
 * example's report on the page is the one the command prints.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Document } from 'yaml';
import { CliRun, runCli } from './memory-api';
import { synthesizeExample } from '../example-apps';
import { STANDARD_VARIANT } from '../example-variants';
import { MemoryKubeApi } from '../memory-kube-api';

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

/** The page's command line, its `dist/` in the test's folder (no cluster: the command reads files only). */
function run(line: string): Promise<CliRun> {
  return runCli(new MemoryKubeApi(), line.split(/\s+/).slice(1).map((a) => a.replace(/^dist\//, `${dist}/`)));
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
