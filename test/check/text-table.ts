/** Reading the table of the check's text report in tests. */

/**
 * The table of a text report as one row of cells per line, its column blocks joined: a block's lines follow its
 * header (WORKLOAD ...) up to a blank line, and each block after the first repeats the WORKLOAD cell.
 */
export function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  const rows = new Map<string, string[]>();
  let i = lines.findIndex((l) => l.startsWith('WORKLOAD'));
  while (i >= 0 && i < lines.length && lines[i].startsWith('WORKLOAD')) {
    for (; lines[i] !== ''; i++) {
      const [first, ...rest] = lines[i].split(/\s{2,}/);
      rows.set(first, [...(rows.get(first) ?? [first]), ...rest]);
    }
    i++;
  }
  return [...rows.values()];
}

/** The table's rows as the report printed them before it wrapped wide tables: cells two spaces apart, a row a line. */
export function unwrappedTable(text: string): string {
  return tableRows(text).map((cells) => cells.join('  ')).join('\n') + '\n';
}
