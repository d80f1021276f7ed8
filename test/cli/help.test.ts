/**
 * Every command's --help lists every flag of its table with its meaning and default, and the one table of exit codes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { runCli } from './memory-api';
import { CHECK_FLAGS, USAGE } from '../../src/cli/check-help';
import { DRILL_FLAGS, DRILL_USAGE } from '../../src/cli/drill-command';
import { SHIFT_FLAGS, SHIFT_USAGE } from '../../src/cli/shift-command';
import { EXIT_CODES } from '../../src/contract/exit-codes';
import { FlagSpec, flagLabel } from '../../src/shared/command-line';
import { MemoryKubeApi } from '../memory-kube-api';

/**
 * The help's entry of a flag (in the section titled `section`, if given): its line and the lines that continue it,
 * joined.
 */
function entry(help: string, spec: FlagSpec, section?: string): string | undefined {
  const lines = help.split('\n');
  const from = section === undefined ? 0 : lines.indexOf(`${section}:`);
  const at = lines.findIndex((l, i) => i > from && l.startsWith(`  ${flagLabel(spec)}`));
  if (at < 0) return undefined;
  let text = lines[at].slice(2 + flagLabel(spec).length).trim();
  for (let i = at + 1; i < lines.length && /^ {10,}\S/.test(lines[i]); i++) text += ` ${lines[i].trim()}`;
  return text;
}

/** Each command, and the tables of its help's sections (a section title, or none). */
const COMMANDS: Array<[string, Array<[string | undefined, readonly FlagSpec[]]>]> = [
  ['check', [[undefined, CHECK_FLAGS]]],
  ['drill', [[undefined, DRILL_FLAGS]]],
  ['shift', Object.entries(SHIFT_FLAGS).map(([sub, table]) => [`shift ${sub}`, table])],
];

test.each(COMMANDS)('%s --help: every flag of its table, its meaning and its default (or when it is required)', async (name, sections) => {
  const r = await runCli(new MemoryKubeApi(), [name, '--help']);
  expect(r).toMatchObject({ code: 0, stderr: '' });
  for (const [section, spec] of sections.flatMap(([title, table]) => table.map((f) => [title, f] as const))) {
    const text = entry(r.stdout, spec, section);
    expect({ flag: spec.name, text }).toEqual({ flag: spec.name, text: expect.stringContaining(spec.meaning) });
    if (spec.informational) continue;
    const said = spec.required === true ? '(required)' : spec.required !== undefined ? `(required ${spec.required})`
      : `(default: ${spec.defaultText ?? spec.default ?? 'off'})`;
    expect({ flag: spec.name, text }).toEqual({ flag: spec.name, text: expect.stringContaining(said) });
  }
  expect(r.stdout.split('\n').filter((l) => l.length > 110)).toEqual([]);
});

/** Each usage form (`cdk8s-zones shift start ...`, its further lines joined) of a usage text. */
function usageForms(usage: string): string[] {
  const forms: string[] = [];
  for (const line of usage.split('\n').filter((l) => l.startsWith(' ') || l.startsWith('Usage:'))) {
    const words = line.replace(/^Usage:/, '').trim();
    if (words.startsWith('cdk8s-zones ')) forms.push(words);
    else forms[forms.length - 1] += ` ${words}`;
  }
  return forms;
}

/** How a usage form shows flag `name`: bare (required), in brackets (optional), or not at all. */
function shownAs(form: string, name: string): 'bare' | 'bracketed' | 'missing' {
  const flag = `--${name}`.replace(/[-]/g, '\\-');
  if (new RegExp(`\\[${flag}[ \\]]`).test(form)) return 'bracketed';
  return new RegExp(`(^|[ (])${flag}( |\\)|$)`).test(form) ? 'bare' : 'missing';
}

test.each([
  ['check', USAGE, [['cdk8s-zones check', CHECK_FLAGS]]],
  ['drill', DRILL_USAGE, [['cdk8s-zones drill --zone', DRILL_FLAGS]]],
  ['shift', SHIFT_USAGE, Object.entries(SHIFT_FLAGS).map(([sub, table]) => [`cdk8s-zones shift ${sub}`, table])],
] as Array<[string, string, Array<[string, readonly FlagSpec[]]>]>)('%s: its usage names every required flag of its table, and every other in brackets', (
  _name, usage, tables,
) => {
  const forms = usageForms(usage);
  for (const [start, table] of tables) {
    const form = forms.find((f) => f.startsWith(`${start} `));
    expect({ start, form }).toEqual({ start, form: expect.any(String) });
    for (const spec of table.filter((f) => !f.informational && f.name !== 'restore')) { // --restore: a form of its own, below
      const shown = shownAs(form!, spec.name);
      expect({ flag: spec.name, shown }).toEqual({ flag: spec.name, shown: spec.required === undefined ? 'bracketed' : 'bare' });
    }
  }
  // what the parser refuses bad input with is this usage
  expect(usage.split('\n').filter((l) => l.length > 110)).toEqual([]);
});

test('drill\'s usage: --restore is a form of its own, taking only --kubeconfig', () => {
  expect(usageForms(DRILL_USAGE)).toContain('cdk8s-zones drill --restore [--kubeconfig FILE]');
  expect(usageForms(SHIFT_USAGE)).toContain('cdk8s-zones shift cancel (NAME ... | --zone ZONE) [--kubeconfig FILE] [--timeout DURATION]');
});

test('shift --help and drill --help list the exit codes, each code once, as docs/cli.md does', async () => {
  for (const command of ['shift', 'drill']) {
    const help = (await runCli(new MemoryKubeApi(), [command, '--help'])).stdout;
    for (const [code, meaning] of EXIT_CODES) expect(help).toContain(`\n${String(code).padStart(3)} ${meaning}\n`);
    expect(help).toContain('https://github.com/cdk8s-zones/cdk8s-zones/blob/main/docs/cli.md#exit-codes');
  }
  const page = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'cli.md'), 'utf8');
  const rows = [...page.matchAll(/^\| (\d+) \| ([^|]+) \|$/gm)].map((m) => [Number(m[1]), m[2].trim()]);
  expect(rows).toEqual(EXIT_CODES.map(([code, meaning]) => [code, meaning]));
});

test.each([
  [['drill', '--zone', 'zone-a', '--yes', '--yes'], '--yes is given twice'],
  [['drill', '--zone'], '--zone needs a value'],
  [['drill', '--zone', '--yes'], '--zone needs a value'],
  [['drill', '--zone', 'zone-a', '--timeout', '1d'], '--timeout="1d" must be a duration above zero: whole numbers with h, m, s or ms'],
  [['drill', '--zone', 'zone-a', '--yes=no'], '--yes takes no value'],
  [['shift', 'status', '--expires-in', '1h'], 'unknown flag "--expires-in"'],
  [['shift', 'cancel', '--timeout', '90'], '--timeout="90" must be a duration above zero'],
])('%j: exit 2, the flag, the value and the rule, and the usage', async (argv, message) => {
  const r = await runCli(new MemoryKubeApi(), argv);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`cdk8s-zones ${argv[0]}: ${message}`);
  expect(r.stderr).toContain(`Usage: cdk8s-zones ${argv[0]}`);
});
