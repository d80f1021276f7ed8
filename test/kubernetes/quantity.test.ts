import * as fc from 'fast-check';
import { formatBytes, parseBytes } from '../../src/kubernetes/quantity';

describe('parseBytes', () => {
  test.each([
    ['0', 0],
    ['1073741824', 1073741824],
    ['10Gi', 10 * 2 ** 30],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['500M', 500e6],
    ['2k', 2000],
    ['1Ti', 2 ** 40],
    ['0.5Ki', 512],
  ])('%s is %i bytes', (text, bytes) => {
    expect(parseBytes('t', 'size', text)).toBe(bytes);
  });

  test.each([
    ['-1Gi', 't: size="-1Gi" must not be negative'],
    ['10GB', 't: size="10GB" is not a byte quantity'],
    ['1e3', 'is not a byte quantity'],
    ['', 'is not a byte quantity'],
    ['0.3', 't: size="0.3" is not a whole number of bytes'],
    ['1.0001Ki', 'is not a whole number of bytes'],
    ['9Ei', 'is larger than 9007199254740991 bytes'],
    // emitted as given into a manifest, where Kubernetes refuses the spaces
    [' 3Mi ', 't: size=" 3Mi " is not a byte quantity'],
  ])('refuses %j', (text, message) => {
    expect(() => parseBytes('t', 'size', text)).toThrow(message);
  });

  test('refuses a number instead of a string', () => {
    expect(() => parseBytes('t', 'size', 5 as any)).toThrow("t: size=5 must be a byte quantity string such as '10Gi'");
  });

  test('property: formatBytes and parseBytes round-trip', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 50 }), (bytes) => {
      expect(parseBytes('t', 'x', formatBytes(bytes))).toBe(bytes);
    }));
  });

  test('formatBytes uses the largest exact suffix, binary first', () => {
    expect([0, 1, 1024, 1536, 3 * 2 ** 30, 2 ** 40 + 2 ** 20, 3e9, 1001].map(formatBytes))
      .toEqual(['0', '1', '1Ki', '1536', '3Gi', '1048577Mi', '3G', '1001']);
  });
});
