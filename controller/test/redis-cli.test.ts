import { parseRedis } from '../src/commands/redis';

describe('redis CLI flags', () => {
  test('the password only from --password-file: never a flag value nor the environment', () => {
    expect(parseRedis(['state', '--inventory', 'i.json', '--password-file', '/run/pw'])).toMatchObject({ inventory: 'i.json', passwordFile: '/run/pw' });
    expect(parseRedis(['state', '--inventory', 'i.json'])).toMatchObject({ passwordFile: undefined });
    expect(() => parseRedis(['state', '--inventory', 'i.json', '--password', 'secret'])).toThrow('unknown flag "--password"');
  });

  test('--zone-loss-failover-after and --timeout: durations; failover off without it', () => {
    expect(parseRedis(['reconcile', '--inventory', 'i.json', '--zone-loss-failover-after', '250ms'])).toMatchObject({ zoneLossFailoverAfterMs: 250 });
    expect(parseRedis(['reconcile', '--inventory', 'i.json', '--timeout', '2m'])).toMatchObject({ timeoutMs: 120_000 });
    expect(parseRedis(['reconcile', '--inventory', 'i.json'])).toMatchObject({ timeoutMs: 60_000 });
    expect(parseRedis(['reconcile', '--inventory', 'i.json'])).toMatchObject({ zoneLossFailoverAfterMs: undefined });
    for (const bad of ['0', '0s', '-1s', 'soon', '0.25', '1.5s']) {
      expect(() => parseRedis(['reconcile', '--inventory', 'i.json', `--zone-loss-failover-after=${bad}`]))
        .toThrow(`--zone-loss-failover-after="${bad}" must be a duration above zero: whole numbers with h, m, s or ms`);
    }
  });
});
