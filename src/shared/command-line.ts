/**
 * The one command-line grammar of cdk8s-zones' programs: the CLI's `check`, `shift` and `drill`, and the
 * controller's commands. A command declares its flags once, in a table (name, type, meaning, default); the
 * parser, the check of each value and the `--help` text all come from it. Pure (no package, no Node.js module),
 * so the runtime controller may import it (test/architecture.test.ts).
 */
import { UsageError } from './errors';

/**
 * What a flag takes: `text` any value; `switch` none (on when given); `duration` a duration (`parseDuration`);
 * `count` a whole number of at least `min`; `list` comma-separated items, none empty; `choice` one of `choices`.
 */
export type FlagType = 'text' | 'switch' | 'duration' | 'count' | 'list' | 'choice';

/** One flag of a command's table. */
export interface FlagSpec {
  /** The long name, without the dashes. */
  readonly name: string;
  readonly type: FlagType;
  /** What it does, for the help. */
  readonly meaning: string;
  /** Its value when not given, as written on the command line (parsed and checked as a given value is). */
  readonly default?: string;
  /**
   * The default as the help says it, when not a value (`none`, `$POD_NAME, else ...`).
   * @default `default`, or `off` for a switch
   */
  readonly defaultText?: string;
  /** True, or when (`unless ...`), the flag must be given; the help says so instead of a default. */
  readonly required?: true | string;
  /** The value's placeholder in the help. @default by type: VALUE, DURATION, N, LIST or the choices */
  readonly value?: string;
  /** The one-letter form, without the dash. */
  readonly short?: string;
  /** The values of each time it is given add up (a list) instead of being refused the second time. */
  readonly repeatable?: boolean;
  /** `choice`: the values it takes. */
  readonly choices?: readonly string[];
  /** `list`: what one item is, as an error about an empty one says it. @default item */
  readonly item?: string;
  /** `count`: the least value. @default 1 */
  readonly min?: number;
  /** `count`: the greatest value. */
  readonly max?: number;
  /** `duration`: a bare number is also taken, as seconds (what earlier versions took; say so in `meaning`). */
  readonly bareSeconds?: boolean;
  /** Only prints something (`--help`, `--version`): the help shows no default. */
  readonly informational?: boolean;
}

/** A parsed value: text, a switch, milliseconds or a whole number, or a list. */
export type FlagValue = string | boolean | number | readonly string[];

/** The flags as given (or defaulted) and checked, and the arguments that are no flag. */
export class ParsedFlags {
  public constructor(
    private readonly table: readonly FlagSpec[],
    private readonly values: ReadonlyMap<string, FlagValue>,
    private readonly raw: ReadonlyMap<string, readonly string[]>,
    public readonly positional: readonly string[],
  ) {}

  /** The flags given on the command line (not defaulted), by name. */
  public get given(): readonly string[] {
    return [...this.raw.keys()];
  }

  /** A flag's value as the command line wrote it (its last, if given more than once), for a message. */
  public written(name: string): string | undefined {
    return this.raw.get(name)?.at(-1);
  }

  /** A `text` or `choice` flag's value. */
  public text(name: string): string | undefined {
    return this.get(name, ['text', 'choice']) as string | undefined;
  }

  /** A switch: true when given. */
  public on(name: string): boolean {
    return this.get(name, ['switch']) === true;
  }

  /** A `duration` flag, in milliseconds. */
  public ms(name: string): number | undefined {
    return this.get(name, ['duration']) as number | undefined;
  }

  /** A `count` flag. */
  public count(name: string): number | undefined {
    return this.get(name, ['count']) as number | undefined;
  }

  /** A `list` flag's items (or a repeatable `text` flag's values). */
  public list(name: string): readonly string[] | undefined {
    return this.get(name, ['list', 'text']) as readonly string[] | undefined;
  }

  private get(name: string, types: readonly FlagType[]): FlagValue | undefined {
    const spec = this.table.find((f) => f.name === name);
    // a bug of the command, not bad input: it reads a flag its table does not declare, or as another type
    if (spec === undefined || !types.includes(spec.type)) {
      throw new Error(`flag --${name} is not a ${types.join(' or ')} flag of this command`);
    }
    return this.values.get(name);
  }
}

/**
 * Parses `argv` (after the command's words) against `table`: `--flag value`, `--flag=value`, `-x value`,
 * switches, and positional arguments (after `--` everything is one). A flag not in the table, a missing or
 * bad value, a switch given a value, or a flag given twice (unless repeatable) is a UsageError naming the flag,
 * the value and the rule. Required flags are the command's to check (they often go with other flags).
 */
export function parseCommandLine(argv: readonly string[], table: readonly FlagSpec[]): ParsedFlags {
  const raw = new Map<string, string[]>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const written = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = findFlag(table, written);
    if (spec === undefined) throw new UsageError(`unknown flag ${JSON.stringify(written)}`);
    const values = raw.get(spec.name) ?? [];
    if (values.length > 0 && !spec.repeatable) throw new UsageError(`${written} is given twice`);
    if (spec.type === 'switch') {
      if (eq > 0) throw new UsageError(`${written} takes no value`);
      raw.set(spec.name, [...values, '']);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    // the next flag is no value (a value may start with one dash: -1s is a bad duration, not a missing one)
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`${written} needs a value`);
    raw.set(spec.name, [...values, value]);
  }
  const values = new Map<string, FlagValue>();
  for (const spec of table) {
    const given = raw.get(spec.name);
    if (given !== undefined) values.set(spec.name, convertAll(spec, given));
    else if (spec.default !== undefined) values.set(spec.name, convert(spec, spec.default));
  }
  return new ParsedFlags(table, values, raw, positional);
}

function findFlag(table: readonly FlagSpec[], written: string): FlagSpec | undefined {
  if (written.startsWith('--')) return table.find((f) => f.name === written.slice(2));
  return written.length === 2 ? table.find((f) => f.short === written.slice(1)) : undefined;
}

/** The values given of one flag, as one value (a repeatable flag's add up into a list). */
function convertAll(spec: FlagSpec, given: readonly string[]): FlagValue {
  if (!spec.repeatable) return convert(spec, given[0]);
  return given.flatMap((v) => {
    const value = convert(spec, v);
    return typeof value === 'string' ? [value] : value as readonly string[];
  });
}

/** One value of a flag, checked against its type. */
function convert(spec: FlagSpec, text: string): FlagValue {
  const flag = `--${spec.name}`;
  switch (spec.type) {
    case 'switch': return true;
    case 'text': return text;
    case 'duration': return parseDuration(flag, text, spec.bareSeconds === true);
    case 'list': return parseList(flag, text, spec.item);
    case 'choice': {
      const choices = spec.choices ?? [];
      if (choices.includes(text)) return text;
      const rule = choices.length === 2 ? choices.join(' or ') : `one of ${choices.join(', ')}`;
      throw new UsageError(`${flag}=${JSON.stringify(text)} must be ${rule}`);
    }
    case 'count': return parseCount(spec, text);
  }
}

function parseCount(spec: FlagSpec, text: string): number {
  const min = spec.min ?? 1;
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || (spec.max !== undefined && n > spec.max)) {
    const range = spec.max === undefined ? `>= ${min}` : `from ${min} to ${spec.max}`;
    throw new UsageError(`--${spec.name}=${JSON.stringify(text)} must be a whole number ${range}`);
  }
  return n;
}

const DURATION_PART = /([0-9]+)(ms|h|m|s)/g;
const DURATION = /^(?:[0-9]+(?:ms|h|m|s))+$/;
const UNIT_MS: { readonly [unit: string]: number } = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
/** The rule a duration follows, as the errors and the docs (docs/cli.md) say it. */
export const DURATION_RULE = 'a duration above zero: whole numbers with h, m, s or ms, as 90s, 15m, 2h, 1h30m or 500ms';

/**
 * `15s`, `5m`, `2h`, `1h30m`, `500ms` as milliseconds; `flag` names the flag in the error. With `bareSeconds`, a
 * bare number (`600`, `0.5`) is seconds too.
 */
export function parseDuration(flag: string, text: string, bareSeconds = false): number {
  let ms = NaN;
  if (DURATION.test(text)) {
    ms = 0;
    for (const m of text.matchAll(DURATION_PART)) ms += Number(m[1]) * UNIT_MS[m[2]];
  } else if (bareSeconds && /^[0-9]+(\.[0-9]+)?$/.test(text)) {
    ms = Math.round(Number(text) * 1000);
  }
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    const bare = bareSeconds ? ' (or a bare number of seconds)' : '';
    throw new UsageError(`${flag}=${JSON.stringify(text)} must be ${DURATION_RULE}${bare}`);
  }
  return ms;
}

/** A comma-separated list; its items trimmed, none empty. */
export function parseList(flag: string, text: string, item = 'item'): string[] {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new UsageError(`${flag}=${JSON.stringify(text)} holds an empty ${item}`);
  return items;
}

/** The width of the help's flag column. */
const FLAG_WIDTH = 30;
/** Where the help's lines wrap. */
const LINE_WIDTH = 110;

/** How the help writes a flag: `-h, --help`, `--zone ZONE`. */
export function flagLabel(spec: FlagSpec): string {
  const name = `${spec.short === undefined ? '' : `-${spec.short}, `}--${spec.name}`;
  return spec.type === 'switch' ? name : `${name} ${spec.value ?? placeholder(spec)}`;
}

function placeholder(spec: FlagSpec): string {
  switch (spec.type) {
    case 'duration': return 'DURATION';
    case 'count': return 'N';
    case 'list': return 'LIST';
    case 'choice': return (spec.choices ?? []).join('|');
    default: return 'VALUE';
  }
}

/** What the help says after a flag's meaning: when it is required, or its default. */
function defaultNote(spec: FlagSpec): string {
  if (spec.informational) return '';
  if (spec.required !== undefined) return spec.required === true ? ' (required)' : ` (required ${spec.required})`;
  const text = spec.defaultText ?? spec.default ?? (spec.type === 'switch' ? 'off' : undefined);
  // a flag without a default says so: the table must give the help something to say
  if (text === undefined) throw new Error(`flag --${spec.name} has neither a default nor a defaultText nor required`);
  return ` (default: ${text})`;
}

/** One flag of the help: its label, then its meaning and default wrapped beside it. */
export function flagHelpLines(spec: FlagSpec): string[] {
  const words = `${spec.meaning}${defaultNote(spec)}`.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && FLAG_WIDTH + 4 + line.length + 1 + word.length > LINE_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  const name = `  ${flagLabel(spec)}`;
  const first = name.length + 2 <= FLAG_WIDTH + 4 ? [`${name.padEnd(FLAG_WIDTH + 4)}${lines.shift()}`] : [name];
  return [...first, ...lines.map((l) => `${' '.repeat(FLAG_WIDTH + 4)}${l}`)];
}

/** Flags the help shows under one title. */
export interface FlagGroup {
  readonly title: string;
  readonly flags: readonly FlagSpec[];
}

/** The help's flag sections: each group's title, then each of its flags. */
export function flagsHelp(groups: readonly FlagGroup[]): string[] {
  return groups.flatMap((g) => ['', `${g.title}:`, ...g.flags.flatMap(flagHelpLines)]);
}

/** `-h, --help`, which every command takes. */
export const HELP_FLAG: FlagSpec = {
  name: 'help', short: 'h', type: 'switch', meaning: 'print this help and exit', informational: true,
};

/** True when `argv` asks for the help (before any `--`). */
export function asksForHelp(argv: readonly string[]): boolean {
  const flags = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return flags.some((a) => a === '--help' || a === '-h');
}

/** One form of a command in its usage text: its words, then its flags from the command's table, then its operands. */
export interface UsageForm {
  /** The words it starts with: `cdk8s-zones shift start`. */
  readonly command: string;
  /** The flags of this form (its command's table, or the part of it this form takes), in the table's order. */
  readonly flags: readonly FlagSpec[];
  /** What follows the flags: `FILE|DIR|- ...`, `[NAME ...]`. */
  readonly operands?: string;
  /** Switches this form is (`drill --restore`): shown as required though the table cannot say so. */
  readonly needs?: readonly string[];
  /** A flag required unless operands stand for it (`shift cancel`): `(NAME ... | --zone ZONE)`. */
  readonly orOperands?: { readonly flag: string; readonly operands: string };
}

/**
 * A flag as the usage shows it: its long form (a choice with its choices), bare when required, else in brackets
 * (`[--mode outage|drain]`).
 */
function usageWord(spec: FlagSpec, form: UsageForm): string {
  const label = flagLabel({ ...spec, short: undefined, value: spec.type === 'choice' ? undefined : spec.value });
  if (form.orOperands?.flag === spec.name) return `(${form.orOperands.operands} | ${label})`;
  return spec.required !== undefined || form.needs?.includes(spec.name) ? label : `[${label}]`;
}

/** The words of one form: the required flags first, then the optional ones, each in the table's order. */
function usageWords(form: UsageForm): string[] {
  const shown = form.flags.filter((f) => !f.informational);
  const required = (f: FlagSpec) => f.required !== undefined
    || form.needs?.includes(f.name)
    || form.orOperands?.flag === f.name;
  const ordered = [...shown.filter(required), ...shown.filter((f) => !required(f))];
  return [...ordered.map((f) => usageWord(f, form)), ...(form.operands === undefined ? [] : [form.operands])];
}

/** How far a usage form's further lines are indented at most (under the form's first word, when short). */
const MAX_USAGE_INDENT = 32;

/**
 * A command's usage, made from its tables so a flag added to a table shows here too: `title` then each form
 * (`title` is `Usage:` or `usage:`), wrapped within the help's width, a form's further lines under its first word.
 */
export function usageText(forms: readonly UsageForm[], title = 'Usage:'): string {
  const lines: string[] = [];
  for (const [i, form] of forms.entries()) {
    const start = `${i === 0 ? title : ' '.repeat(title.length)} ${form.command}`;
    const indent = ' '.repeat(Math.min(start.length + 1, MAX_USAGE_INDENT));
    let line = start;
    for (const word of usageWords(form)) {
      if (line.length + 1 + word.length > LINE_WIDTH) {
        lines.push(line);
        line = `${indent}${word}`;
      } else {
        line = `${line} ${word}`;
      }
    }
    lines.push(line);
  }
  return lines.join('\n');
}
