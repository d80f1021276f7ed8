/**
 * Validates custom resources against CRD OpenAPI v3 schemas (the upstream CRDs in ../shared/crds, or CRDs
 * this library synthesizes). Stricter than the API server's default pruning, like `kubectl apply
 * --validate=strict`: unknown fields are errors, so a typo in a construct cannot pass unnoticed.
 *
 * Covered: types, enums, required, formats of numbers, int-or-string, nullable, maps, unknown fields,
 * list-type set/map uniqueness. Not covered: CEL rules (x-kubernetes-validations); the Kubernetes tier
 * applies every example to a real API server, which runs them.
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import * as yaml from 'yaml';
import { CACHE_DIR } from './programs';
import { sharedDir } from './shared';

type Schema = { [key: string]: any };

/**
 * The upstream CRDs the setup fetches beside ../shared/crds (setup.d/17-prometheus-rule-crd.sh: prometheus-operator's
 * PrometheusRule), by file name.
 */
const FETCHED_CRDS = ['monitoring.coreos.com_prometheusrules.yaml'];

/** Every CustomResourceDefinition in ../shared/crds, in file name order, then those the setup fetched. */
export function sharedCrds(): any[] {
  const dir = path.join(sharedDir(), 'crds');
  const fetched = FETCHED_CRDS.map((f) => path.join(CACHE_DIR, 'crds', f));
  for (const file of fetched.filter((f) => !fs.existsSync(f))) {
    throw new Error(`${file} is missing: run \`npm run test:integration:setup\` (setup.d/17-prometheus-rule-crd.sh)`);
  }
  const shared = fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort().map((f) => path.join(dir, f));
  const files = [...shared, ...fetched];
  return files
    .flatMap((f) => yaml.parseAllDocuments(fs.readFileSync(f, 'utf8')).map((d) => d.toJS()))
    .filter((d) => d?.kind === 'CustomResourceDefinition');
}

/** Rewrites a structural CRD schema into plain JSON Schema that ajv understands. */
function toJsonSchema(s: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, toJsonSchema(v)]));
    } else if (key === 'items' || key === 'not') {
      out[key] = toJsonSchema(value);
    } else if (key === 'additionalProperties') {
      out.additionalProperties = typeof value === 'object' ? toJsonSchema(value) : value;
    } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
      // In structural schemas these only add value validation to fields declared elsewhere.
      out[key] = (value as Schema[]).map((v) => ({ ...toJsonSchema(v), additionalProperties: true }));
    } else if (key === 'pattern') {
      out.pattern = jsPattern(value);
    } else if (key !== 'description' && key !== 'nullable' && key !== 'x-kubernetes-validations' && key !== 'format') {
      out[key] = value;
    }
  }
  if (s['x-kubernetes-int-or-string']) {
    delete out.type;
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (s.format === 'int32' || s.format === 'int64') {
    // An integer, or (type: string, e.g. Longhorn's Volume size) an integer written as a string.
    if (s.type === 'string') out.pattern = '^-?[0-9]+$';
    else out.type = 'integer';
  }
  if (s.nullable && typeof out.type === 'string') out.type = [out.type, 'null'];
  const preserve = s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource'];
  if (out.properties && out.additionalProperties === undefined && !preserve) out.additionalProperties = false;
  return out;
}

/**
 * A CRD's pattern (Go's RE2) as a JavaScript one: RE2's flag group `(?i)`, which applies to the rest of the pattern,
 * becomes the modifier group `(?i:...)` around that rest (prometheus-operator's PrometheusRule has one).
 */
function jsPattern(re2: string): string {
  const flag = re2.indexOf('(?i)');
  return flag < 0 ? re2 : `${re2.slice(0, flag)}(?i:${re2.slice(flag + 4)})`;
}

function listKey(item: any, keys: string[]): string {
  return JSON.stringify(keys.map((k) => item?.[k]));
}

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-type',
    errors: true,
    validate: function check(listType: string, data: any, parent: any): boolean {
      if (!Array.isArray(data) || (listType !== 'set' && listType !== 'map')) return true;
      const keys: string[] = listType === 'map' ? parent['x-kubernetes-list-map-keys'] ?? [] : [];
      const seen = data.map((item) => (listType === 'set' ? JSON.stringify(item) : listKey(item, keys)));
      const dup = seen.find((v, i) => seen.indexOf(v) !== i);
      if (dup !== undefined) {
        (check as any).errors = [{ keyword: 'x-kubernetes-list-type', message: `has duplicate ${listType} entry ${dup}`, params: {} }];
        return false;
      }
      return true;
    },
  });
  return ajv;
}

export interface CrdVersion {
  readonly group: string;
  readonly kind: string;
  readonly version: string;
  readonly validate: ValidateFunction;
}

/** A set of CRDs to validate custom resources against. */
export class CrdSchemas {
  /** Every CRD in ../shared/crds. */
  public static fromShared(): CrdSchemas {
    return new CrdSchemas(sharedCrds());
  }

  private readonly versions = new Map<string, CrdVersion>();

  /** @param crds CustomResourceDefinition objects (apiextensions.k8s.io/v1) */
  constructor(crds: any[]) {
    const ajv = newAjv();
    for (const crd of crds) {
      for (const v of crd.spec.versions) {
        const schema = toJsonSchema(v.schema.openAPIV3Schema);
        // metadata is validated by the API server itself, not by the CRD schema.
        schema.properties = { ...schema.properties, metadata: { type: 'object' } };
        this.versions.set(`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`, {
          group: crd.spec.group, kind: crd.spec.names.kind, version: v.name, validate: ajv.compile(schema),
        });
      }
    }
  }

  /** True when a CRD of this set defines the object's apiVersion and kind. */
  public covers(manifest: any): boolean {
    return this.versions.has(`${manifest.apiVersion}/${manifest.kind}`);
  }

  /** The schema errors of one object, as readable lines (empty when valid). Throws for an unknown kind. */
  public errors(manifest: any): string[] {
    const crd = this.versions.get(`${manifest.apiVersion}/${manifest.kind}`);
    if (!crd) throw new Error(`no CRD defines ${manifest.apiVersion} ${manifest.kind}`);
    if (crd.validate(manifest)) return [];
    return (crd.validate.errors ?? []).map((e: ErrorObject) => {
      const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as any).additionalProperty})` : '';
      return `${manifest.kind} ${manifest.metadata?.name ?? '?'}: ${e.instancePath || '/'} ${e.message}${extra}`;
    });
  }
}
