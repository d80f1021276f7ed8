/**
 * The construct that installs the controller and the controller itself agree: every reconciler name
 * `ZoneController` puts in `--reconcilers` exists, and the RBAC it grants covers every rule that
 * reconciler declares, where the rule says (a missing verb is a 403 at run time, which no synth-time test
 * would see).
 */
import { Chart, Testing } from 'cdk8s';
import { RECONCILERS } from '../../controller/src/reconcilers';
import {
  RolloutTarget, WebhookTls, ZonalRedisCluster, ZoneAwareUpdate, ZoneController, ZoneDisruptionBudget, ZoneTopology,
} from '../../src';
import { RuleScope } from '../../src/contract/rbac';

test('ZoneController with every feature: each reconciler exists and each of its rules is granted', () => {
  const app = Testing.app();
  const chart = new Chart(app, 'c');
  const controller = new ZoneController(chart, 'zones', {
    zoneAwareUpdate: true, zoneDisruptionBudget: true, redisManager: true, webhookTls: WebhookTls.selfManaged(),
  });
  // What it serves, in the namespace 'shop': the rules on named objects come from these constructs.
  const shop = new Chart(app, 'shop', { namespace: 'shop' });
  new ZoneAwareUpdate(shop, 'rollout', { controller, target: RolloutTarget.statefulSetName('db'), maxUnavailable: 1 });
  new ZoneDisruptionBudget(shop, 'budget', { controller, selector: { app: 'db' }, maxUnavailable: 1 });
  new ZonalRedisCluster(shop, 'cache', {
    controller,
    topology: new ZoneTopology({ zones: ['a', 'b', 'c'] }),
    masters: 3,
    password: { name: 'pw', key: 'k' },
  });
  const objects = Testing.synth(chart);
  const roles = (scope: RuleScope) => {
    if (scope === 'cluster') return objects.filter((o) => o.kind === 'ClusterRole');
    const namespace = scope === 'controller' ? controller.namespace : 'shop';
    return objects.filter((o) => o.kind === 'Role' && o.metadata.namespace === namespace);
  };
  const granted = (scope: RuleScope) => roles(scope).flatMap((o) => o.rules);
  // A rule on named objects counts: the names are the served objects' (test/redis checks them exactly).
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
      const rules = granted(rule.scope);
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
