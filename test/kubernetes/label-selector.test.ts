import { labelKeyProblem, labelValueProblem } from '../../src/kubernetes/kubernetes-names';
import { selectorMatches } from '../../src/kubernetes/label-selector';

describe('label keys', () => {
  test.each([
    'topology.kubernetes.io/zone',
    'kubernetes.io/hostname',
    'zone',
    'a',
    'my-org.example.com/rack_id',
    'Zone.Name-1',
    // the longest prefix (253 characters) and the longest name (63)
    `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}/${'e'.repeat(63)}`,
  ])('%s is valid', (key) => {
    expect(labelKeyProblem(key)).toBeUndefined();
  });

  test.each([
    ['', /name part "" must be 63 characters or less/],
    ['/zone', /prefix before '\/' must not be empty/],
    ['a/b/c', /at most one '\/'/],
    ['Example.com/zone', /must be a lowercase DNS subdomain/],
    ['example..com/zone', /must be a lowercase DNS subdomain/],
    ['example.com/', /name part ""/],
    ['-zone', /begin and end with an alphanumeric/],
    ['zone-', /begin and end with an alphanumeric/],
    ['zo ne', /contain only alphanumerics/],
    ['z'.repeat(64), /63 characters or less/],
    [`${'a'.repeat(254)}/zone`, /at most 253 characters/],
  ])('%j is rejected', (key, message) => {
    expect(labelKeyProblem(key)).toMatch(message);
  });
});

describe('label values', () => {
  test.each(['', 'eu-west-1a', 'us_east.1', 'A', '1', 'a'.repeat(63)])('%j is valid', (value) => {
    expect(labelValueProblem(value)).toBeUndefined();
  });
  test.each(['eu west', '-a', 'a-', '.a', 'a/b', 'a'.repeat(64), 'zöne'])('%j is rejected', (value) => {
    expect(labelValueProblem(value)).toMatch(/is not a valid label value/);
  });
});

describe('selector matching', () => {
  const labels = { app: 'web', tier: 'front' };
  test.each([
    [{}, true],
    [{ matchLabels: { app: 'web' } }, true],
    [{ matchLabels: { app: 'api' } }, false],
    [{ matchLabels: { app: 'web', zone: 'a' } }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['back'] }] }, true],
    [{ matchExpressions: [{ key: 'missing', operator: 'NotIn', values: ['x'] }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'missing', operator: 'Exists' }] }, false],
    [{ matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] }, false],
  ])('%j matches %j: %s', (selector, expected) => {
    expect(selectorMatches(selector, labels)).toBe(expected);
  });

  test('an unknown operator is an error, not a silent mismatch', () => {
    expect(() => selectorMatches({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, labels))
      .toThrow(/operator "Gt" is not one of In, NotIn, Exists, DoesNotExist/);
  });
});
