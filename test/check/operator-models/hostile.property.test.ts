/**
 * Every operator row (src/check/operator-models/rows) on hostile resources: any JSON value at any field its model
 * reads, unknown versions, no namespace, counts in the millions. The check never throws; it reads the resource or
 * names it as skipped, and what it reports is whole numbers within bounds.
 */
import fc from 'fast-check';
import { check } from './helpers';
import { OPERATOR_MODELS } from '../../../src/check/operator-models/catalog';
import { OperatorModel } from '../../../src/check/operator-models/model';
import { segments } from '../../../src/check/operator-models/resource-values';

/** Every path a model reads (a `[*]` or an element of a list is left to the value generator). */
function pathsOf(model: OperatorModel): string[] {
  const found = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string' && /^(spec|metadata|item)[.[]/.test(v)) found.add(v);
    else if (typeof v === 'string') for (const m of v.matchAll(/\{([^}|,]+)/g)) found.add(m[1]);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  walk(model);
  return [...found].filter((p) => !p.includes('*') && p !== 'index');
}

/** `value` set at `path` of `target` (an `item.` path lands in the first element of the model's list, or of pools). */
function setAt(target: any, path: string, value: unknown, listPath: string | undefined): void {
  let keys = segments(path);
  if (keys[0] === 'item') {
    if (listPath === undefined) return;
    keys = [...segments(listPath), '0', ...keys.slice(1)];
  }
  let node = target;
  keys.slice(0, -1).forEach((k, i) => {
    const next = keys[i + 1];
    if (typeof node[k] !== 'object' || node[k] === null) node[k] = /^\d+$/.test(next) ? [] : {};
    node = node[k];
  });
  node[keys[keys.length - 1]] = value;
}

const hostileValue = fc.oneof(
  fc.constantFrom(null, 0, -1, 3, 3_000_000, 2_147_483_647, Number.MAX_SAFE_INTEGER, 1.5, NaN, '', '3', 'three', true),
  fc.constantFrom([], {}, [null], { a: 1 }),
  fc.jsonValue({ maxDepth: 2 }),
);

describe.each(OPERATOR_MODELS.map((m) => [`${m.group} ${m.kind}`, m] as const))('%s', (_, model) => {
  const listPath = model.podSets.map((p) => (p.forEach && 'list' in p.forEach ? p.forEach.list : undefined)).find((p) => p);
  const paths = pathsOf(model);

  test('any value at the fields it reads: read or named as skipped, never an exception, counts within bounds', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.constantFrom(...paths), hostileValue), { minLength: 1, maxLength: 6 }),
      fc.constantFrom(...model.versions, 'v0alpha9'),
      fc.boolean(),
      (writes, version, namespaced) => {
        const resource: any = {
          apiVersion: `${model.group}/${version}`,
          kind: model.kind,
          metadata: { name: 'x', ...(namespaced ? { namespace: 'ns' } : {}) },
          spec: {},
        };
        // each value a copy of its own: a write through one path must not reach another
        const copy = (v: unknown) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
        for (const [path, value] of writes) setAt(resource, path, copy(value), listPath);
        resource.metadata.name = 'x';
        resource.kind = model.kind;
        const r = check(resource);
        for (const w of r.workloads) {
          expect(Number.isSafeInteger(w.replicas) && w.replicas >= 0).toBe(true);
          const sane = (n: number) => Number.isSafeInteger(n) && n >= 0 && n <= w.replicas;
          for (const l of w.zoneLoss) expect(sane(l.survivors)).toBe(true);
        }
        const system = r.workloads.find((w) => w.kind === model.kind);
        const skipped = r.data.findings
          .filter((f) => f.rule === 'object-skipped' && f.message.startsWith(`${model.kind} `));
        // read (a system row) or named as skipped, never both
        expect(system !== undefined && skipped.length > 0).toBe(false);
        if (version === 'v0alpha9') expect(skipped.map((f) => f.message).join()).toContain('a version the');
      },
    ), { numRuns: 150 });
  });
});
