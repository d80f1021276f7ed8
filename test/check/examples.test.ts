/** Every example of this repository, in both variants, survives losing any one zone, as the zone check sees it. */
import { ZoneInventory, ZoneReport } from '../../src';
import { EXAMPLE_NAMES, synthesizeExample } from '../example-apps';
import { HOSTILE_VARIANT, STANDARD_VARIANT } from '../example-variants';

describe.each([['standard', STANDARD_VARIANT], ['hostile', HOSTILE_VARIANT]])('%s variant', (_name, variant) => {
  test.each(EXAMPLE_NAMES)('%s', (example) => {
    const report = ZoneReport.analyze(synthesizeExample(example, variant), ZoneInventory.equalNodes(variant.zones, 3));
    const failing = Object.fromEntries(variant.zones.map((z) => [z, report.failingOnLossOf(z)]).filter(([, f]) => f.length > 0));
    expect(failing).toEqual({});
    // no error finding anywhere (a workload may survive and still be placed wrongly, e.g. replicas Pending)
    const errors = report.workloads.flatMap((w) => w.findings.filter((f) => f.severity === 'error').map((f) => `${w.kind} ${w.name}: ${f.message}`));
    expect(errors).toEqual([]);
  });
});
