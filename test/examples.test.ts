/**
 * Every example, built with its standard and with hostile zones (upper case, '_', '.' and 62 characters),
 * synthesizes only names and labels Kubernetes accepts (construct ids of every shape: names.property.test.ts).
 * The Kubernetes tier applies both variants to a real API server and rolls them out.
 */
import { EXAMPLE_NAMES, synthesizeExample } from './example-apps';
import { ExampleVariant, HOSTILE_VARIANT, STANDARD_VARIANT } from './example-variants';
import { kubernetesProblems } from './kubernetes-validity';

test('the validity check finds what Kubernetes refuses', () => {
  expect(kubernetesProblems([
    {
      kind: 'StatefulSet',
      metadata: { name: 'redis-Zone_A' },
      spec: { replicas: 1, template: { metadata: { labels: { app: 'x'.repeat(64) } }, spec: {} } },
    },
    { kind: 'Service', metadata: { name: '1redis' } },
    { kind: 'PodDisruptionBudget', metadata: { name: 'redis-ZONE.B', labels: { 'app.kubernetes.io/instance': 'a b' } } },
    { kind: 'StatefulSet', metadata: { name: 's'.repeat(53) }, spec: { replicas: 1 } },
  ])).toEqual([
    'StatefulSet redis-Zone_A: invalid name "redis-Zone_A"',
    'StatefulSet redis-Zone_A: pod name would be invalid "redis-Zone_A-0"',
    `StatefulSet redis-Zone_A: invalid pod label value "app=${'x'.repeat(64)}"`,
    'Service 1redis: invalid name "1redis"',
    'PodDisruptionBudget redis-ZONE.B: invalid name "redis-ZONE.B"',
    'PodDisruptionBudget redis-ZONE.B: invalid label value "app.kubernetes.io/instance=a b"',
    `StatefulSet ${'s'.repeat(53)}: StatefulSet name longer than 52 characters (its controller-revision-hash label would be too long) "${'s'.repeat(53)}"`,
  ]);
});

describe.each(EXAMPLE_NAMES)('example %s', (name) => {
  test.each([['standard', STANDARD_VARIANT], ['hostile', HOSTILE_VARIANT]])('%s variant: every name and label is valid for Kubernetes', (_, variant) => {
    const objects = synthesizeExample(name, variant as ExampleVariant);
    expect(objects.length).toBeGreaterThan(0);
    expect(kubernetesProblems(objects)).toEqual([]);
  });
});
