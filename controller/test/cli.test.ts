import { dispatch, usage } from '../src/cli';
import { COMMANDS } from '../src/commands';
import { createLogger } from '../src/log';

function capture() {
  const lines: string[] = [];
  const out = { write: (s: string) => { lines.push(s); return true; } } as any;
  const logs: any[] = [];
  const log = createLogger({ write: (l) => { logs.push(JSON.parse(l)); }, now: () => new Date(0) });
  return { lines, out, logs, log };
}

describe('CLI', () => {
  test('usage lists every command', () => {
    const text = usage(COMMANDS);
    for (const c of COMMANDS) expect(text).toContain(`  ${c.name}`);
  });

  test('no command prints usage and exits 2; --help exits 0', async () => {
    const c = capture();
    expect(await dispatch([], COMMANDS, c.log, c.out)).toBe(2);
    expect(await dispatch(['--help'], COMMANDS, c.log, c.out)).toBe(0);
    expect(c.lines.join('')).toContain('usage: cdk8s-zones-controller <command>');
  });

  test('an unknown command is logged as JSON and exits 2', async () => {
    const c = capture();
    expect(await dispatch(['nope'], COMMANDS, c.log, c.out)).toBe(2);
    expect(c.logs).toEqual([expect.objectContaining({ level: 'error', msg: 'unknown command', command: 'nope', time: '1970-01-01T00:00:00.000Z' })]);
  });
});

describe('logger', () => {
  test('one JSON object per line, levels filtered, fields inherited, errors as text', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', write: (l) => lines.push(l), now: () => new Date(0) }).with({ reconciler: 'zau' });
    log.debug('hidden');
    log.warn('careful', { error: new Error('boom'), n: 1 });
    expect(lines).toEqual(['{"time":"1970-01-01T00:00:00.000Z","level":"warn","msg":"careful","reconciler":"zau","error":"boom","n":1}\n']);
  });
});
