// Prints every integration suite's time, slowest first, and each project's wall time, from the JSON results
// `jest --json --outputFile` wrote (run.sh): `node suite-times.js <results.json>...`. A missing file (a jest that
// failed before it ran anything, or crashed) is reported with the end of that project's output (<project>.log beside
// it), and each failed suite with its first lines, so the end of a CI log says what went wrong.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname);
const minutes = (ms) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;

const rows = [];
for (const file of process.argv.slice(2)) {
  const project = path.basename(file, '.json');
  if (!fs.existsSync(file)) {
    console.log(`${project}: no results (${file} missing)`);
    const log = file.replace(/\.json$/, '.log');
    if (fs.existsSync(log)) {
      const tail = fs.readFileSync(log, 'utf8').trimEnd().split('\n').slice(-40);
      console.log(`${project}'s output ended with:\n${tail.map((l) => `  | ${l}`).join('\n')}`);
    }
    continue;
  }
  const run = JSON.parse(fs.readFileSync(file, 'utf8'));
  const ends = run.testResults.map((r) => r.endTime);
  const wall = ends.length ? Math.max(...ends) - run.startTime : 0;
  console.log(`${project}: ${run.testResults.length} suites, ${run.numPassedTests} of ${run.numTotalTests} tests passed, ` +
    `${minutes(wall)} wall`);
  for (const r of run.testResults) {
    rows.push({ ms: r.endTime - r.startTime, status: r.status, name: path.relative(root, r.name), project, message: r.message ?? '' });
  }
}
for (const r of rows.filter((x) => x.status === 'failed')) {
  console.log(`failed: ${r.project} ${r.name}:\n${r.message.split('\n').slice(0, 25).map((l) => `  | ${l}`).join('\n')}`);
}
console.log('integration suites, slowest first:');
for (const r of rows.sort((a, b) => b.ms - a.ms)) {
  console.log(`  ${minutes(r.ms).padStart(7)}  ${r.status.padEnd(6)}  ${r.project.padEnd(10)}  ${r.name}`);
}
