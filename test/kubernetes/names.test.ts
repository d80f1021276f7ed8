import { Chart, Testing } from 'cdk8s';
import { Construct } from 'constructs';
import * as fc from 'fast-check';
import { dnsLabelProblem, labelValueProblem, serviceNameProblem, toDnsLabel, toLabelValue } from '../../src/kubernetes/kubernetes-names';
import { derivedName } from '../../src/kubernetes/object-names';
import { ZONE_SLUG_MAX, zoneSlug } from '../../src/kubernetes/zone-slug';
import { describe as render } from '../../src/shared/errors';

const anyText = fc.string({ maxLength: 120, unit: 'grapheme' });
const labelValue = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);

describe('names the library makes', () => {
  test('property: toDnsLabel of any text is a valid DNS label (or Service name) that fits, and a valid one that fits is kept', () => {
    fc.assert(fc.property(anyText, fc.integer({ min: 16, max: 63 }), fc.boolean(), (text, max, letterFirst) => {
      const name = toDnsLabel(text, max, letterFirst);
      expect(name.length).toBeLessThanOrEqual(max);
      expect(letterFirst ? serviceNameProblem(name) : dnsLabelProblem(name)).toBeUndefined();
      const textIsValid = (letterFirst ? serviceNameProblem(text) : dnsLabelProblem(text)) === undefined;
      if (textIsValid && text.length <= max) expect(name).toBe(text);
    }));
  });

  test('property: two different texts never share a name (the hash of the original tells them apart)', () => {
    fc.assert(fc.property(anyText, anyText, (a, b) => {
      fc.pre(a !== b);
      expect(toDnsLabel(a, 30)).not.toBe(toDnsLabel(b, 30));
    }));
    expect(toDnsLabel('Zone_A')).not.toBe(toDnsLabel('zone.a'));
  });

  test('property: toLabelValue of any text is a valid label value, and a valid one is kept', () => {
    fc.assert(fc.property(anyText, (text) => {
      const value = toLabelValue(text);
      expect(labelValueProblem(value)).toBeUndefined();
      if (labelValueProblem(text) === undefined) expect(value).toBe(text);
    }));
  });

  test('property: a zone slug is a DNS label of at most 18 characters; a short DNS-label zone is its own slug', () => {
    fc.assert(fc.property(labelValue, (zone) => {
      const slug = zoneSlug(zone);
      expect(dnsLabelProblem(slug)).toBeUndefined();
      expect(slug.length).toBeLessThanOrEqual(ZONE_SLUG_MAX);
      if (dnsLabelProblem(zone) === undefined && zone.length <= ZONE_SLUG_MAX) expect(slug).toBe(zone);
    }));
    expect(['eu-west-1a', 'europe-west1-b', 'asia-northeast1-a', '1'].map(zoneSlug)).toEqual(['eu-west-1a', 'europe-west1-b', 'asia-northeast1-a', '1']);
    expect(zoneSlug('Zone_A')).toMatch(/^zone-a-[0-9a-f]{6}$/);
    expect(zoneSlug('northamerica-northeast1-a')).toMatch(/^northameric-[0-9a-f]{6}$/);
  });

  test('derivedName keeps the readable construct path when it is valid and fits, else makes one from the path', () => {
    const chart = new Chart(Testing.app(), 'chart');
    expect(derivedName(new Construct(chart, 'loki'), 40)).toBe('chart-loki');
    const long = derivedName(new Construct(chart, `Loki_${'x'.repeat(90)}`), 40);
    expect(long).toMatch(/^chart-loki-x+-[0-9a-f]{8}$/);
    expect(long.length).toBeLessThanOrEqual(40);
    expect(derivedName(new Construct(new Chart(Testing.app(), '1st'), 'redis'), 40, 'redis')).toBe('redis');
    expect(serviceNameProblem(derivedName(new Construct(new Chart(Testing.app(), '1st'), 'r'), 40))).toBeUndefined();
  });
});

describe('values in messages', () => {
  test.each<[unknown, string]>([
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [-0, '-0'],
    [[1, Number.NaN, undefined], '[1,NaN,undefined]'],
    [{ a: Number.NEGATIVE_INFINITY, b: undefined, c: 'x' }, '{"a":-Infinity,"c":"x"}'],
    [10n, '10n'],
    ['text', '"text"'],
    [null, 'null'],
  ])('%p is shown as %s', (value, shown) => {
    expect(render(value)).toBe(shown);
  });

  test('a huge value is cut, not printed whole', () => {
    expect(render(Array.from({ length: 100_000 }, (_, i) => i)).length).toBeLessThanOrEqual(201);
    const cyclic: any = { a: 1 };
    cyclic.self = cyclic;
    expect(render(cyclic)).toBe('{"a":1,"self":[circular]}');
  });
});
