/** The zone report's formats: text for a terminal, SARIF for code scanning, HTML for a person's browser. */
import { mixedReport, single, workload, ZONES } from './fixtures';
import { tableRows } from './text-table';
import { formatHtml } from '../../src/check/format-html';
import { fileUri, formatSarif } from '../../src/check/format-sarif';
import { columnBlocks, formatText, TEXT_WIDTH } from '../../src/check/format-text';
import { FindingSeverity, ZoneReportData } from '../../src/check/model';
import { packageVersion } from '../../src/shared/package-version';

const ANSI = /\x1b\[/;

/** The lines of the table and its legend (all before the findings). */
function tableAndLegend(text: string): string[] {
  const findings = text.indexOf('Findings (');
  return text.slice(0, findings >= 0 ? findings : undefined).split('\n');
}

describe('formatText', () => {
  test('one row per workload: replicas, needed, guaranteed-worstCase per zone, and what losing each zone leaves', () => {
    const rows = tableRows(formatText(mixedReport()));
    const header = rows.find((r) => r[0] === 'WORKLOAD')!;
    expect(header).toEqual(['WORKLOAD', 'REPLICAS', 'NEEDS', ...ZONES, ...ZONES.map((z) => `LOSE ${z}`)]);
    const web = rows.find((r) => r[0] === 'Deployment/shop/web')!;
    expect(web).toEqual(['Deployment/shop/web', '6', '1', '2-2', '2-2', '2-2',
      'ok 4/1, 2 pending', 'ok 4/1, 2 pending, drain blocked', 'ok 4/1, 2 pending']);
    const failing = rows.find((r) => r[0] === 'Deployment/shop/single')!;
    expect(failing).toEqual(['Deployment/shop/single', '1', '1', '0-1', '0-1', '0-1',
      '✗ LOST 0/1, 1 pending', '✗ LOST 0/1, 1 pending', '✗ LOST 0/1, 1 pending']);
  });

  test('columns line up: every cell of a column starts at the same offset', () => {
    const lines = formatText(mixedReport()).split('\n');
    const start = lines.findIndex((l) => l.startsWith('WORKLOAD') && l.includes('LOSE zone-a'));
    const table = lines.slice(start, lines.indexOf('', start));
    expect(table).toHaveLength(3);
    const lose = table.map((l) => l.indexOf(l.startsWith('WORKLOAD') ? 'LOSE zone-a' : l.includes('LOST') ? '✗ LOST' : 'ok 4/1'));
    expect(new Set(lose).size).toBe(1);
  });

  test('a table wider than 120 columns wraps by columns: each block repeats WORKLOAD, every cell kept', () => {
    const zones = ['europe-west-1a', 'europe-west-1b', 'europe-west-1c', 'europe-west-1d', 'europe-west-1e'];
    const wide = (name: string) => workload({
      namespace: 'observability',
      name,
      perZone: Object.fromEntries(zones.map((z) => [z, { guaranteed: 2, worstCase: 3 }])),
      zoneLoss: zones.map((zone) => ({
        zone, survivors: 8, survives: true, replacementsPending: 2, drainBlocked: true,
      })),
      survives: Object.fromEntries(zones.map((z) => [z, true])),
      replicas: 10,
    });
    const data: ZoneReportData = { zones, workloads: [wide('loki-ingester-zone-aware'), wide('q')], findings: [] };
    const text = formatText(data);
    for (const l of tableAndLegend(text)) expect(l.length).toBeLessThanOrEqual(TEXT_WIDTH);
    const headers = text.split('\n').filter((l) => l.startsWith('WORKLOAD'));
    expect(headers.length).toBeGreaterThan(1);
    const cells = [...zones.map(() => '2-3'), ...zones.map(() => 'ok 8/1, 2 pending, drain blocked')];
    expect(tableRows(text)).toEqual([
      ['WORKLOAD', 'REPLICAS', 'NEEDS', ...zones, ...zones.map((z) => `LOSE ${z}`)],
      ['Deployment/observability/loki-ingester-zone-aware', '10', '1', ...cells],
      ['Deployment/observability/q', '10', '1', ...cells],
    ]);
  });

  test('columnBlocks: WORKLOAD and the next columns that fit 120, at least one; a narrow table is one block', () => {
    expect(columnBlocks([20, 8, 5, 6, 6, 6])).toEqual([[0, 1, 2, 3, 4, 5]]);
    expect(columnBlocks([20, 50, 46, 60])).toEqual([[0, 1, 2], [0, 3]]); // 20 + 2 + 50 + 2 + 46 = 120
    expect(columnBlocks([20, 50, 47, 60])).toEqual([[0, 1], [0, 2], [0, 3]]);
    // 20 + 2 + 98 = 120 fits; a column too wide for any block gets one of its own
    expect(columnBlocks([20, 98, 1, 200, 3])).toEqual([[0, 1], [0, 2], [0, 3], [0, 4]]);
  });

  test('the legend explains every mark of the table: guaranteed-worstCase, LOSE, ✗ LOST, pending, drain blocked', () => {
    const legend = tableAndLegend(formatText(mixedReport())).join(' ');
    expect(legend).toContain('Per zone: guaranteed-worstCase replicas.');
    expect(legend).toContain('LOSE <zone>: replicas (or a group\'s zones) left in the worst case / needed');
    expect(legend).toContain('✗ LOST: losing the zone breaks the workload.');
    expect(legend).toMatch(/N pending: N replacements stay Pending while the zone is down/);
    expect(legend).toContain('drain blocked: draining the zone\'s nodes (kubectl drain) stops at an eviction a PodDisruptionBudget');
  });

  test('the findings under the table: severity, rule, object, message and fix; errors first, the input\'s own as (input)', () => {
    const text = formatText(mixedReport());
    const findings = text.slice(text.indexOf('Findings (3):'));
    expect(findings).toContain('ERROR [single-replica] Deployment/shop/single\n    it has one replica: losing its zone loses it\n    fix: Run at least 2 replicas.');
    expect(findings).toContain('WARNING [soft-zone-spread] Deployment/shop/web\n    its zone spread is ScheduleAnyway\n    fix: Use DoNotSchedule.');
    expect(findings).toContain('WARNING [object-skipped] (input)');
    expect(findings.indexOf('ERROR')).toBeLessThan(findings.indexOf('WARNING'));
    expect(text.trimEnd().endsWith('1 of 2 workloads does not survive losing a zone.')).toBe(true);
  });

  test('no colour codes unless asked; with color, failing cells red and surviving ones green, the markers kept', () => {
    expect(formatText(mixedReport())).not.toMatch(ANSI);
    const coloured = formatText(mixedReport(), { color: true });
    expect(coloured).toContain('\x1b[31m✗ LOST 0/1, 1 pending');
    expect(coloured).toContain('\x1b[32mok 4/1, 2 pending');
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toBe(formatText(mixedReport()));
  });

  test('a workload without a namespace shows -; all surviving says so; no workloads says so', () => {
    const data: ZoneReportData = { zones: ZONES, workloads: [workload({ namespace: undefined })], findings: [] };
    const text = formatText(data);
    expect(text).toContain('Deployment/-/web ');
    expect(text).not.toContain('Findings');
    expect(text.trimEnd().endsWith('The workload survives losing any one zone.')).toBe(true);
    expect(formatText({ zones: ZONES, workloads: [], findings: [] })).toContain('No workloads found.');
  });

  test('deterministic: the same data gives the same text', () => {
    expect(formatText(mixedReport())).toBe(formatText(JSON.parse(JSON.stringify(mixedReport()))));
  });
});

describe('formatSarif', () => {
  const inputs = [
    { file: 'manifests/web.yaml', object: { kind: 'Deployment', namespace: 'shop', name: 'web' }, line: 1 },
    { file: 'manifests/dir with space/single.yaml', object: { kind: 'Deployment', namespace: 'shop', name: 'single' }, line: 14 },
  ];

  test('SARIF 2.1.0 with its required fields: version, $schema, one run of the cdk8s-zones driver, each result with a message', () => {
    const log = JSON.parse(formatSarif(mixedReport(), inputs));
    expect(log.version).toBe('2.1.0');
    expect(log.$schema).toMatch(/^https:\/\/.*sarif-schema-2\.1\.0\.json$/);
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0].tool.driver.name).toBe('cdk8s-zones');
    expect(log.runs[0].tool.driver.version).toBe(packageVersion());
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
    expect(log.runs[0].results.length).toBe(3);
    for (const r of log.runs[0].results) expect(typeof r.message.text === 'string' && r.message.text.length > 0).toBe(true);
  });

  test('one rule per rule id, with a short description; each result points at its rule by id and index, at the severity\'s level', () => {
    const run = JSON.parse(formatSarif(mixedReport(), inputs)).runs[0];
    const rules = run.tool.driver.rules.map((r: any) => [r.id, r.shortDescription.text, r.defaultConfiguration.level]);
    expect(rules).toEqual([
      ['single-replica', 'Single replica', 'error'],
      ['object-skipped', 'Object skipped', 'warning'],
      ['soft-zone-spread', 'Soft zone spread', 'warning'],
    ]);
    for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    expect(run.results.map((r: any) => [r.ruleId, r.level])).toEqual([
      ['single-replica', 'error'], ['object-skipped', 'warning'], ['soft-zone-spread', 'warning'],
    ]);
    const infoFinding = { rule: 'x', severity: FindingSeverity.INFO, message: 'm', fix: '' };
    const info = { zones: ZONES, workloads: [workload({ findings: [infoFinding] })], findings: [] };
    expect(JSON.parse(formatSarif(info)).runs[0].results[0].level).toBe('note');
  });

  test('a result names its object and fix, and sits at the manifest file and line of its object when known', () => {
    const results = JSON.parse(formatSarif(mixedReport(), inputs)).runs[0].results;
    const one = results.find((r: any) => r.ruleId === 'single-replica');
    expect(one.message.text).toBe('Deployment/shop/single: it has one replica: losing its zone loses it. Fix: Run at least 2 replicas.');
    expect(one.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: 'manifests/dir%20with%20space/single.yaml' }, region: { startLine: 14 } });
    expect(one.locations[0].logicalLocations).toEqual([{ fullyQualifiedName: 'Deployment/shop/single', kind: 'resource' }]);
    // the input's own finding has no object: no location
    expect(results.find((r: any) => r.ruleId === 'object-skipped').locations).toBeUndefined();
    // without inputs: the logical location only
    const bare = JSON.parse(formatSarif(mixedReport())).runs[0].results.find((r: any) => r.ruleId === 'single-replica');
    expect(bare.locations[0].physicalLocation).toBeUndefined();
  });

  test('a workload that does not survive with no error finding of its own still gets an error result (zone-loss)', () => {
    const data: ZoneReportData = { zones: ZONES, workloads: [single({ findings: [] }), workload()], findings: [] };
    const run = JSON.parse(formatSarif(data, inputs)).runs[0];
    expect(run.results).toHaveLength(1);
    expect(run.results[0]).toMatchObject({
      ruleId: 'zone-loss',
      level: 'error',
      locations: [{ physicalLocation: { region: { startLine: 14 } } }],
    });
    expect(run.results[0].message.text).toContain('does not survive losing zone-a, zone-b, zone-c: it needs 1 replica (at least one replica), and 0 remain in the worst case.');
    // with an error finding already there, no second result
    expect(JSON.parse(formatSarif(mixedReport())).runs[0].results.filter((r: any) => r.ruleId === 'zone-loss')).toEqual([]);
  });

  test('an absolute path is a file:// URI, a relative one a relative reference; every segment escaped', () => {
    expect(fileUri('/work/app/dist/my chart.k8s.yaml')).toBe('file:///work/app/dist/my%20chart.k8s.yaml');
    expect(fileUri('C:\\app\\dist\\web#1.yaml')).toBe('file:///C:/app/dist/web%231.yaml');
    expect(fileUri('dist\\a?b.yaml')).toBe('dist/a%3Fb.yaml');
    const absolute = [{ ...inputs[1], file: '/repo/manifests/single.yaml' }];
    const { results } = JSON.parse(formatSarif(mixedReport(), absolute)).runs[0];
    const one = results.find((r: any) => r.ruleId === 'single-replica');
    expect(one.locations[0].physicalLocation.artifactLocation).toEqual({ uri: 'file:///repo/manifests/single.yaml' });
  });

  test('deterministic', () => {
    expect(formatSarif(mixedReport(), inputs)).toBe(formatSarif(JSON.parse(JSON.stringify(mixedReport())), inputs));
  });
});

describe('formatHtml', () => {
  test('one self-contained page: inline CSS, no script, no external URL', () => {
    const html = formatHtml(mixedReport());
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|<link|https?:|src=|url\(/i);
  });

  test('the zone map: a row per workload (data-workload), counts per zone, lost cells red, the verdict column', () => {
    const html = formatHtml(mixedReport());
    const rows = [...html.matchAll(/<tr data-workload="([^"]*)">(.*?)<\/tr>/g)];
    expect(rows.map((r) => r[1])).toEqual(['Deployment/shop/web', 'Deployment/shop/single']);
    const cells = (row: string) => [...row.matchAll(/<td class="([^"]*)" data-zone="([^"]*)"><span class="counts">([^<]*)<\/span>/g)].map((m) => [m[2], m[1], m[3]]);
    expect(cells(rows[0][2])).toEqual(ZONES.map((z) => [z, 'survives', '2&ndash;2']));
    expect(cells(rows[1][2])).toEqual(ZONES.map((z) => [z, 'lost', '0&ndash;1']));
    expect(rows[0][2]).toContain('<td class="verdict survives">yes</td>');
    expect(rows[1][2]).toContain('<td class="verdict lost">no</td>');
    expect(html).toMatch(/td\.lost \{ background: #f4b6b6/);
    expect(html).toContain('1 of 2 workloads does not survive losing a zone.');
  });

  test('the findings listed with severity, rule, object, message and fix', () => {
    const html = formatHtml(mixedReport());
    expect(html).toContain('<h2>Findings (3)</h2>');
    expect(html).toContain('<li class="error"><span class="severity">error</span> <span class="rule">single-replica</span> ' +
      '<span class="object">Deployment/shop/single</span>: it has one replica: losing its zone loses it <em>Fix:</em> Run at least 2 replicas.</li>');
    expect(html).toContain('<span class="object">(input)</span>');
  });

  test('every string from the manifests is escaped', () => {
    const evil = '<img src=x onerror="alert(1)">&\'';
    const data: ZoneReportData = {
      zones: ['z<1>', 'z"2'],
      workloads: [workload({
        kind: 'Deployment',
        namespace: evil,
        name: evil,
        neededBecause: evil,
        perZone: { 'z<1>': { guaranteed: 1, worstCase: 1 }, 'z"2': { guaranteed: 1, worstCase: 1 } },
        zoneLoss: [],
        survives: { 'z<1>': true, 'z"2': false },
        findings: [{ rule: evil, severity: FindingSeverity.ERROR, message: evil, fix: evil }],
      })],
      findings: [],
    };
    const html = formatHtml(data);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('"alert');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;');
    expect(html).toContain('<th class="zone">z&lt;1&gt;</th><th class="zone">z&quot;2</th>');
    expect(html).toContain('data-workload="Deployment/&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;/');
  });

  test('deterministic', () => {
    expect(formatHtml(mixedReport())).toBe(formatHtml(JSON.parse(JSON.stringify(mixedReport()))));
  });
});
