import { parseRedis } from '../src/commands/redis';

describe('redis CLI flags', () => {
  test('the password only from --password-file: never a flag value nor the environment', () => {
    expect(parseRedis(['state', '--inventory', 'i.json', '--password-file', '/run/pw'])).toMatchObject({ inventory: 'i.json', passwordFile: '/run/pw' });
    expect(parseRedis(['state', '--inventory', 'i.json'])).toMatchObject({ passwordFile: undefined });
    expect(() => parseRedis(['state', '--inventory', 'i.json', '--password', 'secret'])).toThrow(/Unknown option '--password'/);
  });
});
