import { createHash } from 'crypto';
import * as fc from 'fast-check';
import { Hashmod } from '../../src';

describe('Hashmod (Prometheus hashmod in TypeScript)', () => {
  test.each([
    ['baz', 1000, 976],
    ['foo\nbar', 1000, 734],
  ])('bucket(%j, %d) = %d (Prometheus relabel test vectors)', (value, modulus, bucket) => {
    expect(Hashmod.bucket(value, modulus)).toBe(bucket);
  });

  test('bucketOfLabels joins the values with ";" as Prometheus does', () => {
    expect(Hashmod.bucketOfLabels(['10.0.0.1:8080', ''], 7)).toBe(Hashmod.bucket('10.0.0.1:8080;', 7));
  });

  test.each([0, -1, 1.5, Number.NaN])('modulus %d is refused', (modulus) => {
    expect(() => Hashmod.bucket('x', modulus)).toThrow(`hashmod: modulus=${modulus} must be a positive integer`);
  });

  test('property: the bucket is in [0, modulus) and equals bytes 8..15 of the MD5 as a big-endian uint64, mod m', () => {
    fc.assert(fc.property(fc.string(), fc.integer({ min: 1, max: 2 ** 40 }), (value, modulus) => {
      const bucket = Hashmod.bucket(value, modulus);
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(modulus);
      const digest = createHash('md5').update(value).digest();
      let low = 0n;
      for (const byte of digest.subarray(8)) low = low * 256n + BigInt(byte);
      expect(BigInt(bucket)).toBe(low % BigInt(modulus));
    }));
  });
});
