/**
 * The runbooks' ClusterRoles are the rules the live commands are run with in the Kubernetes tier, and cover every call.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { DRILL_RULES, SHIFT_RULES } from '../../src/cli/cli-rbac';
import { CHECKED_LISTS } from '../../src/drill/drill-plan';

const ROOT = path.resolve(__dirname, '../..');

/** The resources the check's lists name, as `group/resource` (`/pods` for the core group). */
function checkedResources(): string[] {
  return CHECKED_LISTS.map((l) => {
    const parts = l.path.split('/').filter((p) => p !== '');
    return parts[0] === 'api' ? `/${parts[2]}` : `${parts[1]}/${parts[3]}`;
  });
}

function clusterRoleIn(page: string, name: string): any {
  const text = fs.readFileSync(path.join(ROOT, 'docs/runbooks', page), 'utf8');
  const blocks = [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].flatMap((m) => parseAllDocuments(m[1]).map((d) => d.toJSON()));
  return blocks.find((b) => b?.kind === 'ClusterRole' && b.metadata?.name === name);
}

test.each([
  ['zone-impaired.md', 'cdk8s-zones-shift', SHIFT_RULES],
  ['prove-zone-survival.md', 'cdk8s-zones-drill', DRILL_RULES],
])('%s shows ClusterRole %s with exactly the rules the commands are tested with', (page, name, rules) => {
  expect(clusterRoleIn(page, name)?.rules).toEqual(rules);
});

test('the drill\'s rules let it list everything the check reads, and the pods and nodes it watches', () => {
  const granted = new Set(DRILL_RULES
    .filter((r) => r.verbs.includes('list'))
    .flatMap((r) => r.resources.map((res) => `${r.apiGroups[0]}/${res}`)));
  for (const resource of [...checkedResources(), '/pods', '/nodes']) {
    expect([resource, granted.has(resource)]).toEqual([resource, true]);
  }
  expect(DRILL_RULES.flatMap((r) => r.verbs)).not.toContain('*');
});
