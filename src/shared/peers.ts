/**
 * cdk8s and cdk8s-plus-28, loaded on first use, where a module needs one of their classes at run time only to
 * check a prop (`instanceof Size`). The zone check's CLI imports those modules for their pure parts and never
 * calls these: loading cdk8s and cdk8s-plus-28 was a large part of its start (bench/check.ts, "Zone check").
 * A plain require: jest's module registry sees it (a test's Size is this Size), and the CLI's bundle keeps the
 * peer dependencies outside itself (scripts/bundle-cli.js).
 */

export function cdk8sLazily(): typeof import('cdk8s') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('cdk8s');
}

export function cdk8sPlusLazily(): typeof import('cdk8s-plus-28') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('cdk8s-plus-28');
}
