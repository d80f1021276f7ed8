import { parseRedis } from '../src/commands/redis';

describe('redis CLI flags', () => {
  test('the password only from --password-file: never a flag value nor the environment', () => {
    expect(parseRedis(['state', '--inventory', 'i.json', '--password-file', '/run/pw'])).toMatchObject({ inventory: 'i.json', passwordFile: '/run/pw' });
    expect(parseRedis(['state', '--inventory', 'i.json'])).toMatchObject({ passwordFile: undefined });
    expect(() => parseRedis(['state', '--inventory', 'i.json', '--password', 'secret'])).toThrow(/Unknown option '--password'/);
  });

  test('--zone-loss-failover-after: seconds, off without it', () => {
    expect(parseRedis(['reconcile', '--inventory', 'i.json', '--zone-loss-failover-after', '0.25'])).toMatchObject({ zoneLossFailoverAfterMs: 250 });
    expect(parseRedis(['reconcile', '--inventory', 'i.json'])).toMatchObject({ zoneLossFailoverAfterMs: undefined });
    for (const bad of ['0', '-1', 'soon', '0.0001']) {
      expect(() => parseRedis(['reconcile', '--inventory', 'i.json', `--zone-loss-failover-after=${bad}`]))
        .toThrow(`redis: --zone-loss-failover-after="${bad}" must be a number of seconds of at least 0.001`);
    }
  });
});
