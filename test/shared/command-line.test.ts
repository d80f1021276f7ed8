/** The one command-line grammar: a table of flags, from which the parser, the checks and the help come. */
import {
  asksForHelp, FlagSpec, flagHelpLines, flagsHelp, HELP_FLAG, parseCommandLine, parseDuration, usageText,
} from '../../src/shared/command-line';
import { UsageError } from '../../src/shared/errors';

const TABLE: readonly FlagSpec[] = [
  { name: 'zone', type: 'text', value: 'ZONE', meaning: 'the zone', required: true },
  { name: 'yes', type: 'switch', meaning: 'do it' },
  { name: 'timeout', type: 'duration', default: '5m', meaning: 'how long' },
  { name: 'interval', type: 'duration', default: '1', bareSeconds: true, meaning: 'how often (a bare number: seconds)' },
  { name: 'replicas', type: 'count', min: 0, max: 9, defaultText: 'as many as zones', meaning: 'how many' },
  { name: 'zones', type: 'list', item: 'zone name', defaultText: 'all', meaning: 'which zones' },
  { name: 'mode', type: 'choice', choices: ['outage', 'drain'], default: 'outage', meaning: 'how' },
  { name: 'label', type: 'text', repeatable: true, defaultText: 'none', meaning: 'labels' },
  HELP_FLAG,
];

test('values by type, defaults parsed as given ones, and the arguments that are no flag', () => {
  const f = parseCommandLine(['a.yaml', '--zone', 'z1', '--yes', '--timeout=1h30m', '--replicas', '0', '--zones', 'a, b', '--label', 'x', '-', '--label=y'], TABLE);
  expect(f.text('zone')).toBe('z1');
  expect(f.on('yes')).toBe(true);
  expect(f.ms('timeout')).toBe(5_400_000);
  expect(f.ms('interval')).toBe(1000);
  expect(f.count('replicas')).toBe(0);
  expect(f.list('zones')).toEqual(['a', 'b']);
  expect(f.text('mode')).toBe('outage');
  expect(f.list('label')).toEqual(['x', 'y']);
  expect(f.positional).toEqual(['a.yaml', '-']);
  expect(f.given).toEqual(['zone', 'yes', 'timeout', 'replicas', 'zones', 'label']);
  expect(f.written('timeout')).toBe('1h30m');
  const none = parseCommandLine([], TABLE);
  expect([none.text('zone'), none.on('yes'), none.ms('timeout'), none.count('replicas'), none.list('zones')])
    .toEqual([undefined, false, 300_000, undefined, undefined]);
});

test('after --, everything is an argument; -h is --help', () => {
  expect(parseCommandLine(['--yes', '--', '--zone', '-x'], TABLE).positional).toEqual(['--zone', '-x']);
  expect(parseCommandLine(['-h'], TABLE).on('help')).toBe(true);
  expect(asksForHelp(['--zone', 'a', '-h'])).toBe(true);
  expect(asksForHelp(['--', '--help'])).toBe(false);
});

test.each([
  [['--bogus'], 'unknown flag "--bogus"'],
  [['-x'], 'unknown flag "-x"'],
  [['--zone'], '--zone needs a value'],
  [['--zone', '--yes'], '--zone needs a value'],
  [['--yes=true'], '--yes takes no value'],
  [['--zone', 'a', '--zone', 'b'], '--zone is given twice'],
  [['--yes', '--yes'], '--yes is given twice'],
  [['--timeout', '30'], '--timeout="30" must be a duration above zero: whole numbers with h, m, s or ms, as 90s, 15m, 2h, 1h30m or 500ms'],
  [['--timeout', '0s'], '--timeout="0s" must be a duration above zero'],
  [['--timeout', '1.5s'], '--timeout="1.5s" must be a duration above zero'],
  [['--timeout', '2d'], '--timeout="2d" must be a duration above zero'],
  [['--timeout', '-1s'], '--timeout="-1s" must be a duration above zero'],
  [['--interval', 'soon'], '--interval="soon" must be a duration above zero: whole numbers with h, m, s or ms, as 90s, 15m, 2h, 1h30m or 500ms (or a bare number of seconds)'],
  [['--replicas', '10'], '--replicas="10" must be a whole number from 0 to 9'],
  [['--replicas', 'two'], '--replicas="two" must be a whole number from 0 to 9'],
  [['--zones', 'a,,b'], '--zones="a,,b" holds an empty zone name'],
  [['--mode', 'kill'], '--mode="kill" must be outage or drain'],
])('%j is bad input: %s', (argv, message) => {
  expect(() => parseCommandLine(argv, TABLE)).toThrow(UsageError);
  expect(() => parseCommandLine(argv, TABLE)).toThrow(message);
});

test('durations: h, m, s and ms, combined; a bare number only where the flag takes seconds', () => {
  expect(['15s', '5m', '2h', '1h30m', '1m30s', '500ms', '2h0m1s'].map((d) => parseDuration('--t', d)))
    .toEqual([15_000, 300_000, 7_200_000, 5_400_000, 90_000, 500, 7_201_000]);
  expect(parseDuration('--t', '0.5', true)).toBe(500);
  expect(parseDuration('--t', '600', true)).toBe(600_000);
  expect(() => parseDuration('--t', '600')).toThrow('--t="600" must be a duration above zero');
  expect(() => parseDuration('--t', '')).toThrow('--t="" must be a duration above zero');
});

test('reading a flag the table does not declare, or as another type, is a bug of the command (not bad input)', () => {
  const f = parseCommandLine([], TABLE);
  expect(() => f.text('nope')).toThrow('flag --nope is not a text or choice flag of this command');
  expect(() => f.ms('zone')).toThrow('flag --zone is not a duration flag of this command');
  expect(() => f.text('nope')).not.toThrow(UsageError);
});

test('the help: every flag of the table, its value, its meaning, and its default or when it is required', () => {
  const help = flagsHelp([{ title: 'Flags', flags: TABLE }]).join('\n');
  expect(help).toBe([
    '',
    'Flags:',
    '  --zone ZONE                     the zone (required)',
    '  --yes                           do it (default: off)',
    '  --timeout DURATION              how long (default: 5m)',
    '  --interval DURATION             how often (a bare number: seconds) (default: 1)',
    '  --replicas N                    how many (default: as many as zones)',
    '  --zones LIST                    which zones (default: all)',
    '  --mode outage|drain             how (default: outage)',
    '  --label VALUE                   labels (default: none)',
    '  -h, --help                      print this help and exit',
  ].join('\n'));
  const long = flagHelpLines({ name: 'zone-loss-failover-after', type: 'duration', meaning: 'word '.repeat(30).trim(), defaultText: 'none' });
  expect(long[0]).toBe('  --zone-loss-failover-after DURATION');
  expect(long.slice(1).every((l) => l.startsWith(' '.repeat(34)) && l.length <= 110)).toBe(true);
  expect(long.map((l) => l.trim()).join(' ')).toMatch(/word word \(default: none\)$/);
});

test('a flag the help could say nothing of (no default, not required) is a bug of the table', () => {
  expect(() => flagHelpLines({ name: 'x', type: 'text', meaning: 'x' })).toThrow('flag --x has neither a default nor a defaultText nor required');
});

test('the usage comes from the table: required flags bare and first, the others in brackets, --help left out', () => {
  expect(usageText([{ command: 'prog run', flags: TABLE, operands: 'FILE ...' }])).toBe([
    'Usage: prog run --zone ZONE [--yes] [--timeout DURATION] [--interval DURATION] [--replicas N] [--zones LIST]',
    '                [--mode outage|drain] [--label VALUE] FILE ...',
  ].join('\n'));
  const restore: FlagSpec = { name: 'restore', type: 'switch', meaning: 'undo' };
  expect(usageText([
    { command: 'prog', flags: [TABLE[1], TABLE[0]], orOperands: { flag: 'zone', operands: 'NAME ...' } },
    { command: 'prog', flags: [TABLE[2], restore], needs: ['restore'] },
  ], 'usage:')).toBe([
    'usage: prog (NAME ... | --zone ZONE) [--yes]',
    '       prog --restore [--timeout DURATION]',
  ].join('\n'));
});
