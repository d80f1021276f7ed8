/**
 * Run-time checks (see props.ts) for the Kubernetes values props carry: names, labels, quantities,
 * resource requirements, label selectors, images.
 */
import {
  dataKeyProblem, dnsLabelProblem, dnsSubdomainProblem, labelKeyProblem, labelValueProblem, serviceNameProblem,
} from './kubernetes-names';
import { quantityProblem, quantityValue, sizeProblem } from './quantity';
import { cdk8sLazily, cdk8sPlusLazily } from '../shared/peers';
import { Props, RequiredCheck } from '../shared/props';

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

export const KubeProps = {
  /** A namespace, or another DNS-1123 label. */
  dnsLabel: (): RequiredCheck => Props.string(dnsLabelProblem, 'a DNS label'),
  /** A name that also names a Service (DNS-1035 label: starts with a letter). */
  serviceName: (): RequiredCheck => Props.string(serviceNameProblem, 'a DNS-1035 label (a valid Service name)'),
  /** The name of a ConfigMap, Secret, StorageClass, ... */
  dnsSubdomain: (): RequiredCheck => Props.string(dnsSubdomainProblem, 'a DNS subdomain'),
  /** A key of a Secret's or ConfigMap's data. */
  dataKey: (): RequiredCheck => Props.string(dataKeyProblem, 'a Secret or ConfigMap key'),
  labelKey: (): RequiredCheck => Props.string(labelKeyProblem, 'a label key'),
  labelValue: (): RequiredCheck => Props.string(labelValueProblem, 'a label value'),
  /** Labels: valid keys to valid values. */
  labels: (): RequiredCheck => Props.mapOf(Props.string(labelValueProblem, 'a label value'), labelKeyProblem),
  /** A container image reference. */
  image: (): RequiredCheck => Props.string((s) => (s === '' || /\s/.test(s) ? "must be an image reference without spaces, e.g. 'docker.io/library/redis:7.2.5'" : undefined), 'an image reference'),
  /** A cdk8s `Size` of a whole number of bytes, larger than zero unless `zero` is allowed (volume and disk sizes). */
  size: (zero = false): RequiredCheck => Props.custom('a cdk8s Size such as Size.gibibytes(10)', (v) => sizeProblem(v, zero)),
  /** A cdk8s `Duration`. */
  duration: (): RequiredCheck => Props.instanceOf(cdk8sLazily().Duration, 'Duration'),
  /** Container resources: quantities by resource name, requests at most the limits, a memory limit. */
  resources: (): RequiredCheck => Props.custom('k8s.ResourceRequirements ({ requests, limits } of quantities, with limits.memory)', resourcesProblem),
  /** A label selector (matchLabels and matchExpressions) as Kubernetes validates it. */
  labelSelector: (): RequiredCheck => Props.custom('a k8s.LabelSelector', labelSelectorProblem),
};

function quantityText(q: unknown): string | undefined {
  if (q instanceof cdk8sPlusLazily().k8s.Quantity) return String(q.value);
  return undefined;
}

function resourcesProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be a k8s.ResourceRequirements object';
  const { requests, limits, claims, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `has unknown fields ${Object.keys(rest).join(', ')} (requests, limits, claims)`;
  if (claims !== undefined && !Array.isArray(claims)) return 'claims must be a list';
  const parsed: Record<string, Record<string, string>> = {};
  for (const [field, map] of Object.entries({ requests, limits })) {
    if (map === undefined) continue;
    if (map === null || typeof map !== 'object' || Array.isArray(map)) return `${field} must be an object of k8s.Quantity`;
    parsed[field] = {};
    for (const [resource, q] of Object.entries(map)) {
      const keyProblem = labelKeyProblem(resource);
      if (keyProblem) return `${field} names the resource ${JSON.stringify(resource)}, which ${keyProblem.replace(/^is not a valid label key: /, 'is not a resource name: ')}`;
      const text = quantityText(q);
      if (text === undefined) return `${field}.${resource} must be a k8s.Quantity (k8s.Quantity.fromString('500m'))`;
      const problem = quantityProblem(text);
      if (problem) return `${field}.${resource}=${JSON.stringify(text)} ${problem}`;
      parsed[field][resource] = text;
    }
  }
  if (parsed.limits?.memory === undefined) {
    return 'must set limits.memory: every container the library emits has a memory limit, so one that leaks is OOM-killed alone ' +
      'instead of starving the other pods of its node';
  }
  for (const [resource, request] of Object.entries(parsed.requests ?? {})) {
    const limit = parsed.limits?.[resource];
    if (limit !== undefined && compareQuantities(request, limit) > 0) {
      return `requests.${resource}=${request} exceeds limits.${resource}=${limit}: Kubernetes requires a request at most its limit`;
    }
  }
  return undefined;
}

/** Orders two valid quantities (close enough for the request <= limit check). */
function compareQuantities(a: string, b: string): number {
  return Math.sign(quantityValue(a)! - quantityValue(b)!);
}

function labelSelectorProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be a k8s.LabelSelector object';
  const { matchLabels, matchExpressions, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `has unknown fields ${Object.keys(rest).join(', ')} (matchLabels, matchExpressions)`;
  if (matchLabels !== undefined) {
    if (matchLabels === null || typeof matchLabels !== 'object' || Array.isArray(matchLabels)) return 'matchLabels must be an object of labels';
    for (const [k, v] of Object.entries(matchLabels)) {
      const problem = labelKeyProblem(k) ?? (typeof v === 'string' ? labelValueProblem(v) : 'is not a string');
      if (problem) return `matchLabels ${JSON.stringify(k)}: ${problem}`;
    }
  }
  if (matchExpressions !== undefined) {
    if (!Array.isArray(matchExpressions)) return 'matchExpressions must be a list';
    for (const [i, e] of matchExpressions.entries()) {
      if (e === null || typeof e !== 'object') return `matchExpressions[${i}] must be an object`;
      const { key, operator, values } = e as Record<string, unknown>;
      const keyProblem = typeof key === 'string' ? labelKeyProblem(key) : 'is not a string';
      if (keyProblem) return `matchExpressions[${i}].key ${keyProblem}`;
      if (typeof operator !== 'string' || !SELECTOR_OPERATORS.includes(operator)) {
        return `matchExpressions[${i}].operator must be one of ${SELECTOR_OPERATORS.join(', ')}`;
      }
      const areLabelValues = Array.isArray(values) && values.every((v) => typeof v === 'string' && !labelValueProblem(v));
      if (values !== undefined && !areLabelValues) {
        return `matchExpressions[${i}].values must be a list of label values`;
      }
      const count = (values as unknown[] | undefined)?.length ?? 0;
      if ((operator === 'In' || operator === 'NotIn') && count === 0) return `matchExpressions[${i}]: ${operator} needs at least one value`;
      if ((operator === 'Exists' || operator === 'DoesNotExist') && count > 0) return `matchExpressions[${i}]: ${operator} takes no values`;
    }
  }
  return undefined;
}
