/**
 * The real promtool (Debian's Prometheus 2.42 package, installed by the tier's setup beside prometheus) over a rule
 * group the library renders: `check rules` and `test rules` in a directory of their own.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AlertGroup, prometheusRuleGroup, runbookUrl } from '../../../src/monitoring/alert-rule';
import { programPath } from '../programs';

export interface Promtool {
  /** promtool's output and exit code for `args`, run beside the rule file `rules.yml`. */
  run(...args: string[]): { code: number; output: string };
  /** Writes `tests.yml` (over `rules.yml`) with `tests` and expects `promtool test rules` to pass every one. */
  expectTestsPass(tests: readonly object[]): void;
  /** An alert promtool must see, as `test rules` spells it: its labels (severity among them) and every annotation. */
  alert(name: string, labels: Record<string, string>, summary: string, description: string): object;
  close(): void;
}

/**
 * A promtool over `group`, written as the rule file of a standalone shard (JSON is YAML), with `recorded` recording
 * rules besides.
 */
export function promtoolOver(group: AlertGroup, recorded: readonly { record: string; expr: string }[] = []): Promtool {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zone-rules-'));
  const rules = prometheusRuleGroup(group);
  const groups = [{ ...rules, rules: [...recorded, ...rules.rules] }];
  fs.writeFileSync(path.join(dir, 'rules.yml'), JSON.stringify({ groups }));
  const run = (...args: string[]) => {
    try {
      return { code: 0, output: execFileSync(programPath('promtool'), args, { cwd: dir, encoding: 'utf8', stdio: 'pipe' }) };
    } catch (err: any) {
      return { code: err.status ?? -1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
    }
  };
  return {
    run,
    expectTestsPass: (tests) => {
      fs.writeFileSync(path.join(dir, 'tests.yml'), JSON.stringify({ rule_files: ['rules.yml'], evaluation_interval: '1m', tests }));
      const tested = run('test', 'rules', 'tests.yml');
      expect(tested.output).toContain('SUCCESS');
      expect(tested.code).toBe(0);
    },
    alert: (name, labels, summary, description) => {
      const severity = group.rules.find((r) => r.alert === name)!.severity;
      return {
        exp_labels: { ...labels, severity },
        exp_annotations: { summary, description, runbook_url: runbookUrl(name) },
      };
    },
    close: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
