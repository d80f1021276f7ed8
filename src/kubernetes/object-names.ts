/**
 * Names the library chooses for the objects it emits (as opposed to names the user gives, which are
 * checked and refused when invalid): always valid, shortened with a hash of the construct path when the
 * path is too long or holds characters object names may not.
 */
import { ApiObject, Chart, JsonPatch, Names } from 'cdk8s';
import { IConstruct } from 'constructs';
import { dnsLabelProblem, dnsSubdomainProblem, hashedDnsLabel, SUBDOMAIN_MAX, serviceNameProblem } from './kubernetes-names';
import { invalidProp } from '../shared/errors';

/** The construct path as one DNS label (a Service name when `letterFirst`), cut to `max`, with a hash of the path. */
function pathName(scope: IConstruct, max: number, letterFirst: boolean): string {
  return hashedDnsLabel(scope.node.path, max, letterFirst);
}

/**
 * A base name for a construct's objects, at most `max` characters and valid as a Service name: `text`
 * (by default the construct path as cdk8s renders it without a hash, e.g. `chart-loki`) when it already
 * is one and fits, else one made from the construct path (so no two constructs share it).
 */
export function derivedName(
  scope: IConstruct,
  max: number,
  text = Names.toDnsLabel(scope, { includeHash: false, maxLen: SUBDOMAIN_MAX }),
): string {
  return serviceNameProblem(text) === undefined && text.length <= max ? text : pathName(scope, max, true);
}

/**
 * Makes the name cdk8s generated for an object valid: cdk8s keeps the '_' and '.' of construct ids,
 * which object names may not hold. Returns the object's name as emitted.
 */
export function ensureValidName(obj: ApiObject): string {
  if (dnsSubdomainProblem(obj.name) === undefined) return obj.name;
  const fixed = pathName(obj, 63, false);
  obj.addJsonPatch(JsonPatch.replace('/metadata/name', fixed));
  return fixed;
}

/**
 * The namespace a construct's objects go to: `given` (its `namespace` prop, checked with the other props),
 * else the chart's, which cdk8s does not check: a chart namespace that is not a DNS label is refused here.
 */
export function resolveNamespace(where: string, scope: IConstruct, given: string | undefined): string | undefined {
  if (given !== undefined) return given;
  const namespace = Chart.of(scope).namespace;
  const problem = namespace === undefined ? undefined : dnsLabelProblem(namespace);
  if (problem) throw invalidProp(where, "the chart's namespace", namespace, problem);
  return namespace;
}

/** cdk8s gives every object the chart's namespace; a cluster-scoped object must have none. */
export function clusterScoped<T extends ApiObject>(obj: T): T {
  if (obj.metadata.namespace !== undefined) obj.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
  return obj;
}
