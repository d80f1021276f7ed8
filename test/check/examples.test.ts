/** Every example of this repository, in both variants, survives losing any one zone, as the zone check sees it. */
import { ZoneInventory, ZoneReport } from '../../src';
import { formatText, TEXT_WIDTH } from '../../src/check/format-text';
import { EXAMPLE_NAMES, synthesizeExample } from '../example-apps';
import { HOSTILE_VARIANT, STANDARD_VARIANT } from '../example-variants';

describe.each([['standard', STANDARD_VARIANT], ['hostile', HOSTILE_VARIANT]])('%s variant', (_name, variant) => {
  test.each(EXAMPLE_NAMES)('%s', (example) => {
    const report = ZoneReport.analyze(synthesizeExample(example, variant), ZoneInventory.equalNodes(variant.zones, 3));
    const failing = Object.fromEntries(variant.zones
      .map((z) => [z, report.failingOnLossOf(z)])
      .filter(([, f]) => f.length > 0));
    expect(failing).toEqual({});
    // no error finding anywhere (a workload may survive and still be placed wrongly, e.g. replicas Pending)
    const errors = report.workloads.flatMap((w) => w.findings
      .filter((f) => f.severity === 'error')
      .map((f) => `${w.kind} ${w.name}: ${f.message}`));
    expect(errors).toEqual([]);
    // The text report's table and legend fit a terminal (the findings after them are prose). The hostile variant's
    // 63-character zone (the longest label value) makes a LOSE column that no block fits beside its WORKLOAD
    // column: it stands alone in its block, never cut.
    const text = formatText(report.data);
    const wide = text.slice(0, text.indexOf('Findings (') >= 0 ? text.indexOf('Findings (') : undefined).split('\n')
      .filter((l) => l.length > TEXT_WIDTH);
    if (variant === STANDARD_VARIANT) expect(wide).toEqual([]);
    else expect(wide.filter((l) => l.split(/\s{2,}/).length > 2)).toEqual([]);
  });
});
