/**
 * The construct that installs the controller and the controller itself agree: every reconciler name
 * `ZoneController` puts in `--reconcilers` exists, and the RBAC it grants covers every rule that
 * reconciler declares (a missing verb is a 403 at run time, which no synth-time test would see).
 */
import { Chart, Testing } from 'cdk8s';
import { RECONCILERS } from '../../controller/src/reconcilers';
import { WebhookTls, ZoneController } from '../../src';

test('ZoneController with every feature: each reconciler exists and each of its rules is granted', () => {
  const chart = new Chart(Testing.app(), 'c');
  const controller = new ZoneController(chart, 'zones', {
    zoneAwareUpdate: true, zoneDisruptionBudget: true, redisManager: true, webhookTls: WebhookTls.selfManaged(),
  });
  const objects = Testing.synth(chart);
  const granted = (kind: string) => objects.filter((o) => o.kind === kind).flatMap((o) => o.rules);
  const allows = (rules: any[], apiGroup: string, resource: string, verb: string) =>
    rules.some((r) => r.apiGroups.includes(apiGroup) && r.resources.includes(resource) && r.verbs.includes(verb));

  expect(controller.reconcilers).toEqual(['zone-annotator', 'zone-aware-update', 'zone-disruption-budget', 'redis']);
  const missing: string[] = [];
  for (const name of controller.reconcilers) {
    const reconciler = RECONCILERS.find((r) => r.name === name);
    if (!reconciler) {
      missing.push(`reconciler ${name} does not exist`);
      continue;
    }
    for (const rule of reconciler.rbac) {
      const rules = granted(rule.namespaced ? 'Role' : 'ClusterRole');
      for (const group of rule.apiGroups) {
        for (const resource of rule.resources) {
          for (const verb of rule.verbs) {
            if (!allows(rules, group, resource, verb)) missing.push(`${name}: ${verb} ${group || 'core'}/${resource}`);
          }
        }
      }
    }
  }
  expect(missing).toEqual([]);
});
