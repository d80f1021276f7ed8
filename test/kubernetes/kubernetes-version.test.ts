import { hasPodTopologyLabels, isAtLeast, parseKubernetesVersion } from '../../src/kubernetes/kubernetes-version';

describe('Kubernetes versions', () => {
  test.each([
    ['1.35', { major: 1, minor: 35 }],
    ['v1.35.4', { major: 1, minor: 35 }],
    ['1.9', { major: 1, minor: 9 }],
    ['1.35.2-gke.1000', { major: 1, minor: 35 }],
    ['v1.36.0-rc.1', { major: 1, minor: 36 }],
  ])('parses %s', (text, release) => {
    expect(parseKubernetesVersion('x', 'v', text)).toEqual(release);
  });

  test.each(['', '1', 'one.two', '1.35.4.1', 'latest'])('refuses %j', (text) => {
    expect(() => parseKubernetesVersion('Thing', 'kubernetesVersion', text)).toThrow(`Thing: kubernetesVersion=${JSON.stringify(text)} is not a Kubernetes version`);
  });

  test('pods carry their zone label from 1.35 on (KEP-4742)', () => {
    expect(hasPodTopologyLabels({ major: 1, minor: 34 })).toBe(false);
    expect(hasPodTopologyLabels({ major: 1, minor: 35 })).toBe(true);
    expect(isAtLeast({ major: 2, minor: 0 }, 1, 35)).toBe(true);
  });
});
