/**
 * The command line of the CLI's live commands (`shift`, `drill`): `--flag value`, `--flag=value`, switches and
 * positional arguments, each flag declared once; anything else is bad input (exit 2, with the usage).
 */
import { UsageError } from '../shared/errors';

/** A flag that takes a value, or a switch. */
export type FlagKind = 'value' | 'switch';

/** What was given: the values by flag (without the dashes), the switches set, and the positional arguments. */
export interface ParsedFlags {
  readonly values: { readonly [flag: string]: string };
  readonly switches: ReadonlySet<string>;
  readonly positional: readonly string[];
}

/** Parses `argv` against the flags `known` (names without the dashes). A flag given twice is refused. */
export function parseFlags(argv: readonly string[], known: { readonly [flag: string]: FlagKind }): ParsedFlags {
  const values: { [flag: string]: string } = {};
  const switches = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown flag ${JSON.stringify(arg)}`);
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq > 0 ? eq : undefined);
    const kind = Object.prototype.hasOwnProperty.call(known, name) ? known[name] : undefined;
    if (kind === undefined) throw new UsageError(`unknown flag ${JSON.stringify(`--${name}`)}`);
    if (name in values || switches.has(name)) throw new UsageError(`--${name} is given twice`);
    if (kind === 'switch') {
      if (eq > 0) throw new UsageError(`--${name} takes no value`);
      switches.add(name);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    values[name] = value;
  }
  return { values, switches, positional };
}

const DURATION = /^([0-9]+)(s|m|h)$/;
const UNIT_SECONDS: { [unit: string]: number } = { s: 1, m: 60, h: 3600 };

/** `30s`, `15m`, `2h` as seconds; `flag` names the flag in the error. */
export function parseDuration(flag: string, text: string): number {
  const m = DURATION.exec(text);
  const seconds = m ? Number(m[1]) * UNIT_SECONDS[m[2]] : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new UsageError(`--${flag}=${JSON.stringify(text)} must be a duration above zero: a whole number and s, m or h (90s, 15m, 2h)`);
  }
  return seconds;
}

/** A comma-separated list without empty items. */
export function parseList(flag: string, text: string): string[] {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new UsageError(`--${flag}=${JSON.stringify(text)} holds an empty item`);
  return items;
}
