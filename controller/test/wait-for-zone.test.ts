import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseWaitForZone, waitForNonEmptyFile, waitForZone } from '../src/commands/wait-for-zone';
import { createLogger } from '../src/log';

describe('wait-for-zone', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wfz-'));

  test('parses its flags and rejects bad ones', () => {
    expect(parseWaitForZone(['--file', '/etc/podinfo/zone'])).toEqual({ file: '/etc/podinfo/zone', timeoutMs: 600_000, intervalMs: 1000 });
    expect(parseWaitForZone(['--file', 'f', '--timeout', '2.5', '--interval', '0.1'])).toEqual({ file: 'f', timeoutMs: 2500, intervalMs: 100 });
    expect(() => parseWaitForZone([])).toThrow('wait-for-zone: --file is required');
    expect(parseWaitForZone(['--file', 'f', '--timeout', '2m', '--interval', '500ms'])).toEqual({ file: 'f', timeoutMs: 120_000, intervalMs: 500 });
    expect(() => parseWaitForZone(['--file', 'f', '--timeout', '0'])).toThrow('--timeout="0" must be a duration above zero');
    expect(() => parseWaitForZone(['--file', 'f', '--timeout', 'soon'])).toThrow('(or a bare number of seconds)');
    expect(() => parseWaitForZone(['--file', 'f', '--bogus'])).toThrow('unknown flag "--bogus"');
  });

  test('returns the content once the file becomes non-empty', async () => {
    const file = path.join(dir, 'zone');
    fs.writeFileSync(file, '');
    setTimeout(() => fs.writeFileSync(file, 'zone-b\n'), 100);
    await expect(waitForNonEmptyFile({ file, timeoutMs: 10_000, intervalMs: 20 })).resolves.toBe('zone-b');
  });

  test('a file that does not exist yet counts as empty', async () => {
    const file = path.join(dir, 'later');
    setTimeout(() => fs.writeFileSync(file, 'zone-a'), 100);
    await expect(waitForNonEmptyFile({ file, timeoutMs: 10_000, intervalMs: 20 })).resolves.toBe('zone-a');
  });

  test('gives up after the timeout', async () => {
    const waited = waitForNonEmptyFile({ file: path.join(dir, 'never'), timeoutMs: 150, intervalMs: 20 });
    await expect(waited).resolves.toBeUndefined();
  });

  test('the zone never arrived: exit 1, the system failed (not 2: the command ran and waited as told)', async () => {
    const logs: any[] = [];
    const log = createLogger({ write: (l) => { logs.push(JSON.parse(l)); } });
    const args = ['--file', path.join(dir, 'never'), '--timeout', '100ms', '--interval', '20ms'];
    expect(await waitForZone.run(args, log)).toBe(1);
    expect(logs.at(-1)).toMatchObject({ level: 'error', msg: expect.stringMatching(/^the zone never arrived/) });
  });
});
