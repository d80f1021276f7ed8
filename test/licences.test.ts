/**
 * The Go modules the test tier builds (every go.mod and go.sum of the repository, and the build scripts) hold no
 * module this project may not use: the AGPL ones (Loki's among them: the Loki claims run on Cortex, see
 * docs/loki.md) and those without an open-source licence.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..');

/** Module paths not to build, with why (the machine's package rules). */
const NOT_TO_USE: { readonly [module: string]: string } = {
  'github.com/grafana/loki/v3': 'AGPL',
  'github.com/grafana/loki': 'AGPL',
  'github.com/grafana/grafana': 'AGPL',
  'github.com/grafana/tempo': 'AGPL',
  'github.com/grafana/mimir': 'AGPL',
  'go.k6.io/k6': 'AGPL',
  'github.com/aminueza/terraform-provider-minio': 'AGPL',
  'github.com/cockroachdb/cockroach': 'not an open-source licence',
  'github.com/hashicorp/nomad': 'not an open-source licence from v1.7.0 on',
  'github.com/redpanda-data/connect/v4': 'not an open-source licence',
};

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n').filter((f) => /(^|\/)go\.(mod|sum)$/.test(f) || /^test\/integration\/setup\.d\/.*\.sh$/.test(f));

/**
 * The module paths a go.mod or go.sum text names (the first word of a require, replace or sum line, both sides of =>).
 */
function modulesOf(text: string): string[] {
  return text.split('\n')
    .map((l) => l.replace(/\/\/.*$/, '').trim().replace(/^(require|replace|exclude|tool)\s+/, ''))
    .flatMap((l) => l.split('=>').map((side) => side.trim().split(/\s+/)[0]))
    .filter((m) => /^[a-z0-9.-]+\.[a-z]+\//.test(m ?? ''));
}

/** The modules of `text` not to use, with why. */
function forbidden(text: string): string[] {
  const found = modulesOf(text).filter((m) => NOT_TO_USE[m] !== undefined || m.startsWith('github.com/grafana/loki/'));
  return [...new Set(found)].map((m) => `${m}: ${NOT_TO_USE[m] ?? 'AGPL'}`);
}

test('the repository has Go modules and build scripts to look at', () => {
  expect(files.filter((f) => f.endsWith('go.mod')).length).toBeGreaterThan(0);
  expect(files.some((f) => f.endsWith('40-cortex.sh'))).toBe(true);
  expect(modulesOf(fs.readFileSync(path.join(ROOT, 'test/integration/cortex/go/go.mod'), 'utf8'))).toContain('github.com/cortexproject/cortex');
});

test('the check finds a forbidden module in a require, a tool line, a replace and a go.sum line', () => {
  expect(forbidden('require (\n\tgithub.com/grafana/loki/v3 v3.7.8 // indirect\n)')).toEqual(['github.com/grafana/loki/v3: AGPL']);
  expect(forbidden('tool github.com/grafana/loki/v3/cmd/loki')).toEqual(['github.com/grafana/loki/v3/cmd/loki: AGPL']);
  expect(forbidden('replace github.com/x/y => go.k6.io/k6 v1.0.0')).toEqual(['go.k6.io/k6: AGPL']);
  expect(forbidden('github.com/grafana/loki/pkg/push v0.0.0-2025 h1:abc=')).toEqual(['github.com/grafana/loki/pkg/push: AGPL']);
  expect(forbidden('github.com/grafana/dskit v0.0.0 h1:abc=')).toEqual([]);
});

test.each(files.filter((f) => !f.endsWith('.sh')))('%s names no module this project may not use', (file) => {
  expect(forbidden(fs.readFileSync(path.join(ROOT, file), 'utf8'))).toEqual([]);
});

test.each(files.filter((f) => f.endsWith('.sh')))('%s builds no module this project may not use', (file) => {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  expect(Object.keys(NOT_TO_USE).filter((m) => text.includes(m))).toEqual([]);
});
