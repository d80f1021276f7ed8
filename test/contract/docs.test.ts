/**
 * Pointers at the guides: the package ships no docs/ folder, so every message, help text, CRD description and
 * SARIF rule names a guide by its address in the repository (src/contract/docs.ts), and that address leads to
 * a page and a heading that exist.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { DOCS_URL, docsUrl, headingAnchor, REPOSITORY_URL } from '../../src/contract/docs';
import { sourceFiles } from '../import-graph';

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCES = [...sourceFiles(path.join(ROOT, 'src')), ...sourceFiles(path.join(ROOT, 'controller', 'src'))];

/** The text of every string literal and template part of `file` (comments are not strings). */
function stringsOf(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)
      || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The anchors of the headings of a docs/ page. */
function anchorsOf(page: string): string[] {
  return fs.readFileSync(path.join(ROOT, 'docs', page), 'utf8').split('\n')
    .filter((l) => /^#{1,6} /.test(l)).map((l) => headingAnchor(l.replace(/^#+ /, '').replace(/`/g, '')));
}

test('the repository is the one package.json names', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  expect(pkg.repository.url.replace(/\.git$/, '')).toBe(REPOSITORY_URL);
  expect(DOCS_URL).toBe(`${REPOSITORY_URL}/blob/main/docs`);
});

test('a heading\'s anchor is GitHub\'s', () => {
  expect(docsUrl('loki.md', 'Rolling out a change')).toBe(`${DOCS_URL}/loki.md#rolling-out-a-change`);
  expect(headingAnchor('How a pod learns its zone: ZoneSource')).toBe('how-a-pod-learns-its-zone-zonesource');
  expect(headingAnchor('Sizes and zones: the write quorum with a zone down')).toBe('sizes-and-zones-the-write-quorum-with-a-zone-down');
});

test('no string in src/ or controller/src/ points at a docs/ path a user of the package cannot open', () => {
  const relative = SOURCES.flatMap((file) => stringsOf(file)
    .filter((s) => /(^|[^/\w])docs\/[\w-]+\.md/.test(s))
    .map((s) => `${path.relative(ROOT, file)}: ${s}`));
  expect(relative).toEqual([]);
});

test('every docsUrl(page, heading) of src/ and controller/src/ leads to a page and heading that exist', () => {
  const calls = SOURCES.flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/docsUrl\('([^']+)'(?:, '([^']+)')?\)/g)]
    .map((m) => ({ file: path.relative(ROOT, file), page: m[1], heading: m[2] })));
  expect(calls.length).toBeGreaterThanOrEqual(4);
  for (const call of calls) {
    expect({ ...call, exists: fs.existsSync(path.join(ROOT, 'docs', call.page)) }).toEqual({ ...call, exists: true });
    if (call.heading !== undefined) expect(anchorsOf(call.page)).toContain(headingAnchor(call.heading));
  }
});
