/**
 * The runbooks' ClusterRoles are the rules the live commands are run with in the Kubernetes tier, and cover every call.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { LIVE_LISTS } from '../../src/check/live/live-read';
import { CHECK_LIVE_RULES, DRILL_RULES, SHIFT_RULES } from '../../src/cli/cli-rbac';

const ROOT = path.resolve(__dirname, '../..');

/** The resources `check --live` lists, as `group/resource` (`/pods` for the core group), in every version it tries. */
function checkedResources(): string[] {
  return LIVE_LISTS.flatMap((l) => l.apis.map((api) => {
    const parts = api.split('/').filter((p) => p !== '');
    return parts[0] === 'api' ? `/${l.resource}` : `${parts[1]}/${l.resource}`;
  }));
}

function clusterRoleIn(page: string, name: string): any {
  const text = fs.readFileSync(path.join(ROOT, 'docs/runbooks', page), 'utf8');
  const blocks = [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].flatMap((m) => parseAllDocuments(m[1]).map((d) => d.toJSON()));
  return blocks.find((b) => b?.kind === 'ClusterRole' && b.metadata?.name === name);
}

test.each([
  ['zone-impaired.md', 'cdk8s-zones-shift', SHIFT_RULES],
  ['prove-zone-survival.md', 'cdk8s-zones-drill', DRILL_RULES],
  ['prove-zone-survival.md', 'cdk8s-zones-check-live', CHECK_LIVE_RULES],
])('%s shows ClusterRole %s with exactly the rules the commands are tested with', (page, name, rules) => {
  expect(clusterRoleIn(page, name)?.rules).toEqual(rules);
});

test.each([['check --live', CHECK_LIVE_RULES], ['drill', DRILL_RULES]])('%s\'s rules let it list everything check --live reads, and the nodes; no wildcard', (_, rules) => {
  const granted = new Set(rules
    .filter((r) => r.verbs.includes('list'))
    .flatMap((r) => r.resources.map((res) => `${r.apiGroups[0]}/${res}`)));
  for (const resource of [...checkedResources(), '/pods', '/nodes']) {
    expect([resource, granted.has(resource)]).toEqual([resource, true]);
  }
  expect(rules.flatMap((r) => [...r.verbs, ...r.resources, ...r.apiGroups])).not.toContain('*');
});
