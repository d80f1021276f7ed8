/**
 * The manifest files of test/check/real-corpus (its verdicts left out), sorted: one list for the tests and the bench.
 */
import * as fs from 'fs';
import * as path from 'path';

export const REAL_CORPUS = path.join(__dirname, 'real-corpus');

/** Absolute paths of every corpus manifest, in sorted order. */
export function realCorpusFiles(dir = REAL_CORPUS): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => (e.isDirectory() ? realCorpusFiles(path.join(dir, e.name))
      : e.name.endsWith('.yaml') && !e.name.startsWith('verdicts') ? [path.join(dir, e.name)] : []));
}
