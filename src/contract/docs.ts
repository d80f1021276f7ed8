/**
 * Where the project's guides are, as addresses a user can open: the package ships no docs/ folder, so a
 * message, a help text, a CRD description or a SARIF rule that points at a guide names its page in the
 * repository. The one home of that address: the library and the runtime controller both read it from here
 * (test/contract/docs.test.ts holds it to package.json's repository, and every pointer to a page that exists).
 */

/** The repository, as package.json's `repository.url` (.projenrc.ts `repositoryUrl`) names it, without `.git`. */
export const REPOSITORY_URL = 'https://github.com/cdk8s-zones/cdk8s-zones';

/** The docs/ folder of the default branch. */
export const DOCS_URL = `${REPOSITORY_URL}/blob/main/docs`;

/** The address of a guide (`check.md`), or of one of its sections by its heading (`Rolling out a change`). */
export function docsUrl(page: string, heading?: string): string {
  return `${DOCS_URL}/${page}${heading === undefined ? '' : `#${headingAnchor(heading)}`}`;
}

/** The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, each space a hyphen. */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}
