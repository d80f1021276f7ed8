import { Chart, Testing } from 'cdk8s';
import { ZoneController } from '../../src';

describe('ZoneController redisManager', () => {
  test('runs the redis reconciler with exactly its RBAC merged into the ClusterRole', () => {
    const chart = new Chart(Testing.app(), 'c', { disableResourceNameHashes: true });
    const controller = new ZoneController(chart, 'zones', { redisManager: true });
    const objects = Testing.synth(chart);
    expect(controller.reconcilers).toEqual(['zone-annotator', 'redis']);
    const args = objects.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args;
    expect(args.join(' ')).toContain('--reconcilers zone-annotator,redis');
    expect(objects.find((o) => o.kind === 'ClusterRole').rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'update'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    ]);
  });

  test('alone (no zone annotator): pods are only read', () => {
    const chart = new Chart(Testing.app(), 'c', { disableResourceNameHashes: true });
    new ZoneController(chart, 'zones', { zoneAnnotator: false, redisManager: true });
    const rules = Testing.synth(chart).find((o) => o.kind === 'ClusterRole').rules;
    expect(rules[0]).toEqual({ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] });
  });
});
