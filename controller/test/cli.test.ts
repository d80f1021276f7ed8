import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CliOutput, Command, dispatch, failed, usage, UsageError } from '../src/cli';
import { COMMANDS } from '../src/commands';
import { createLogger } from '../src/log';

/** What the package.json of the repository says: the version the controller is built from. */
const VERSION: string = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version;

/** A fake stdout and stderr (a terminal or not), and the JSON log lines. */
function capture(opts: { tty?: boolean; debug?: boolean } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const output: CliOutput = {
    out: (s) => { out.push(s); },
    err: (s) => { err.push(s); },
    tty: opts.tty ?? false,
    debug: opts.debug ?? false,
  };
  const logs: any[] = [];
  const log = createLogger({ write: (l) => { logs.push(JSON.parse(l)); }, now: () => new Date(0) });
  return { output, log, logs, out: () => out.join(''), err: () => err.join('') };
}

/** A command that fails as told. */
function failing(error: Error): Command {
  return { name: 'boom', summary: 'fails', help: 'usage: boom\n', flags: [], run: async () => { throw error; } };
}

describe('CLI', () => {
  test('usage lists every command, the version, LOG_LEVEL and the guide\'s address', () => {
    const text = usage(COMMANDS);
    for (const c of COMMANDS) expect(text).toContain(`  ${c.name}`);
    expect(text).toContain(`cdk8s-zones-controller ${VERSION}: the runtime controller of cdk8s-zones`);
    expect(text).toContain('  LOG_LEVEL  debug, info, warn or error (default info)');
    expect(text).toContain('guide: https://github.com/cdk8s-zones/cdk8s-zones/blob/main/docs/controller.md');
  });

  test('no command prints usage on stderr and exits 2; --help and help on stdout, exit 0', async () => {
    const c = capture();
    expect(await dispatch([], COMMANDS, c.log, c.output)).toBe(2);
    expect(c.err()).toContain('usage: cdk8s-zones-controller <command>');
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const h = capture();
      expect(await dispatch(argv, COMMANDS, h.log, h.output)).toBe(0);
      expect(h.out()).toContain('usage: cdk8s-zones-controller <command>');
    }
  });

  test('--version, -V and version print the version of the package it is built from', async () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    for (const argv of [['--version'], ['-V'], ['version']]) {
      const c = capture();
      expect(await dispatch(argv, COMMANDS, c.log, c.output)).toBe(0);
      expect(c.out()).toBe(`cdk8s-zones-controller ${VERSION}\n`);
      expect(c.logs).toEqual([]);
    }
  });

  test('<command> --help (or -h, among other flags) prints its help on stdout, exit 0, and runs nothing', async () => {
    for (const command of COMMANDS) {
      for (const argv of [[command.name, '--help'], [command.name, '--bogus', '-h']]) {
        const c = capture();
        expect(await dispatch(argv, COMMANDS, c.log, c.output)).toBe(0);
        expect(c.out()).toBe(command.help);
        expect(c.logs).toEqual([]);
      }
    }
  });

  test.each(COMMANDS.map((c) => [c.name, c] as const))('%s --help describes every flag it parses, with its default (or that it is required)', (_name, command) => {
    const lines = command.help.split('\n');
    for (const spec of command.flags.filter((f) => f.name !== 'help')) {
      const flag = spec.name;
      const at = lines.findIndex((l) => new RegExp(`^ {2}--${flag}( |$)`).test(l));
      expect({ flag, described: at >= 0 }).toEqual({ flag, described: true });
      let entry = lines[at];
      for (let i = at + 1; i < lines.length && /^ {4,}\S/.test(lines[i]); i++) entry += ` ${lines[i].trim()}`;
      expect({ flag, entry }).toEqual({ flag, entry: expect.stringMatching(/\bdefault\b|\(required\)/) });
      if (spec.default !== undefined && spec.default !== '') {
        expect({ flag, entry }).toEqual({ flag, entry: expect.stringContaining(`default: ${spec.default}`) });
      }
      if (spec.type === 'switch') expect({ flag, entry }).toEqual({ flag, entry: expect.stringContaining('default: off') });
    }
    // and no flag it does not parse
    const described = lines.map((l) => /^ {2}--([a-z-]+)/.exec(l)?.[1]).filter((f): f is string => f !== undefined);
    expect(described.filter((f) => !command.flags.some((spec) => spec.name === f))).toEqual([]);
    expect(command.help).toMatch(/^ {2}-h, --help +print this help and exit$/m);
  });
});

describe('errors', () => {
  const commands = COMMANDS.map((c) => [c.name, c] as const);
  test.each(commands)('%s: its usage names every required flag of its table, and every other in brackets', (name, command) => {
    // the usage: the help's first lines, up to the blank line
    const usageLine = command.help.split('\n\n')[0].split('\n').map((l) => l.trim()).join(' ');
    expect(usageLine.startsWith(`usage: cdk8s-zones-controller ${name} `)).toBe(true);
    for (const spec of command.flags.filter((f) => !f.informational)) {
      const flag = `--${spec.name}`.replace(/-/g, '\\-');
      const shown = new RegExp(`\\[${flag}[ \\]]`).test(usageLine) ? 'bracketed'
        : new RegExp(` ${flag}( |$)`).test(usageLine) ? 'bare' : 'missing';
      const expected = spec.required === undefined ? 'bracketed' : 'bare';
      expect({ flag: spec.name, shown }).toEqual({ flag: spec.name, shown: expected });
    }
    expect(command.help.split('\n').filter((l) => l.length > 110)).toEqual([]);
  });

  test('an unknown command: a JSON log line, exit 2; at a terminal, one readable line', async () => {
    const c = capture();
    expect(await dispatch(['nope'], COMMANDS, c.log, c.output)).toBe(2);
    expect(c.logs).toEqual([expect.objectContaining({ level: 'error', msg: 'unknown command', command: 'nope', time: '1970-01-01T00:00:00.000Z' })]);
    const t = capture({ tty: true });
    expect(await dispatch(['nope'], COMMANDS, t.log, t.output)).toBe(2);
    expect(t.err()).toBe('cdk8s-zones-controller: unknown command "nope"; the commands are run, wait-for-zone, redis\n' +
      "run 'cdk8s-zones-controller --help' for more\n");
    expect(t.logs).toEqual([]);
  });

  test('bad arguments: exit 2; a JSON log line naming the command and its --help, or at a terminal one line and the hint', async () => {
    const c = capture();
    expect(await dispatch(['wait-for-zone', '--timeout', '5'], COMMANDS, c.log, c.output)).toBe(2);
    expect(c.logs).toEqual([expect.objectContaining({
      level: 'error', msg: 'bad arguments', command: 'wait-for-zone', error: 'wait-for-zone: --file is required', help: 'cdk8s-zones-controller wait-for-zone --help',
    })]);
    expect(c.out() + c.err()).toBe('');
    const t = capture({ tty: true });
    expect(await dispatch(['run', '--reconcilers', 'nope'], COMMANDS, t.log, t.output)).toBe(2);
    expect(t.err()).toBe('cdk8s-zones-controller run: --reconcilers: unknown reconciler "nope"; known: zone-annotator, zone-aware-update, ' +
      "zone-disruption-budget, redis, zone-shift, zone-autoshift, lost-zone-recovery\nrun 'cdk8s-zones-controller run --help' for the options\n");
    const u = capture({ tty: true });
    expect(await dispatch(['redis', 'state', '--bogus'], COMMANDS, u.log, u.output)).toBe(2);
    expect(u.err()).toMatch(/^cdk8s-zones-controller redis: unknown flag "--bogus"/);
  });

  test('an unexpected error: exit 3 (a bug); a JSON log line with the stack, or at a terminal the message alone (its stack only at debug)', async () => {
    const error = new Error('ENOENT: no such file or directory, open \'inventory.json\'');
    const c = capture();
    expect(await dispatch(['boom'], [failing(error)], c.log, c.output)).toBe(3);
    expect(c.logs).toEqual([
      expect.objectContaining({ level: 'error', msg: 'fatal', command: 'boom', error: error.message, stack: error.stack }),
    ]);
    expect(c.err()).toBe('');
    const t = capture({ tty: true });
    expect(await dispatch(['boom'], [failing(error)], t.log, t.output)).toBe(3);
    expect(t.err()).toBe('cdk8s-zones-controller boom: ENOENT: no such file or directory, open \'inventory.json\'\n');
    expect(t.logs).toEqual([]);
    const d = capture({ tty: true, debug: true });
    expect(await dispatch(['boom'], [failing(error)], d.log, d.output)).toBe(3);
    expect(d.err()).toBe(`cdk8s-zones-controller boom: ${error.message}\n${error.stack}\n`);
  });

  test('could not run: a file missing, an API server unreachable or refusing exit 2, as the CLI\'s commands do', async () => {
    const missing = Object.assign(new Error('ENOENT: no such file or directory, open \'inventory.json\''), { code: 'ENOENT' });
    const t = capture({ tty: true });
    expect(await dispatch(['boom'], [failing(missing)], t.log, t.output)).toBe(2);
    expect(t.err()).toBe('cdk8s-zones-controller boom: ENOENT: no such file or directory, open \'inventory.json\'\n');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    expect(await dispatch(['boom'], [failing(refused)], t.log, t.output)).toBe(2);
    const forbidden = Object.assign(new Error('GET /api/v1/pods: 403 Forbidden: no'), { status: 403 });
    expect(await dispatch(['boom'], [failing(forbidden)], t.log, t.output)).toBe(2);
  });

  test('a missing inventory, and an invalid one, are bad input: exit 2', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-cli-'));
    const t = capture({ tty: true });
    const missing = path.join(dir, 'missing.json');
    expect(await dispatch(['redis', 'state', '--inventory', missing], COMMANDS, t.log, t.output)).toBe(2);
    expect(t.err()).toContain(`cdk8s-zones-controller redis: ENOENT: no such file or directory, open '${missing}'`);
    const invalid = path.join(dir, 'inventory.json');
    fs.writeFileSync(invalid, '{}');
    const u = capture({ tty: true });
    expect(await dispatch(['redis', 'state', '--inventory', invalid], COMMANDS, u.log, u.output)).toBe(2);
    expect(u.err()).toMatch(/^cdk8s-zones-controller redis: redis inventory: expected \{"layout"/);
  });

  test('what main catches outside any command, and a thrown non-Error', () => {
    const t = capture({ tty: true });
    expect(failed('a string', undefined, t.log, t.output)).toBe(3);
    expect(t.err()).toBe('cdk8s-zones-controller: a string\n');
    const c = capture();
    expect(failed(new UsageError('x: bad'), 'x', c.log, c.output)).toBe(2);
    expect(c.logs).toEqual([expect.objectContaining({ msg: 'bad arguments', error: 'x: bad', help: 'cdk8s-zones-controller x --help' })]);
  });
});

describe('logger', () => {
  test('one JSON object per line, levels filtered, fields inherited, errors as text', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', write: (l) => lines.push(l), now: () => new Date(0) })
      .with({ reconciler: 'zau' });
    log.debug('hidden');
    log.warn('careful', { error: new Error('boom'), n: 1 });
    expect(lines).toEqual(['{"time":"1970-01-01T00:00:00.000Z","level":"warn","msg":"careful","reconciler":"zau","error":"boom","n":1}\n']);
  });
});
