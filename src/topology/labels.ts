/**
 * Kubernetes label rules (apimachinery validation.IsQualifiedName / IsValidLabelValue), and label
 * selector matching. Pure functions shared by every construct and by the runtime controller.
 */

const NAME_MAX = 63;
const PREFIX_MAX = 253;
const NAME_PATTERN = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const LABEL_NAME_RULE =
  `must be ${NAME_MAX} characters or less, begin and end with an alphanumeric character ([a-z0-9A-Z]) ` +
  "and contain only alphanumerics, '-', '_' and '.'";
export const LABEL_VALUE_RULE = `is not a valid label value: it ${LABEL_NAME_RULE} (or be empty)`;

/**
 * Returns why `key` is not a valid label key (an optional DNS-subdomain prefix and '/', then a name),
 * or undefined when it is valid.
 */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) {
    return "is not a valid label key: it may contain at most one '/' (an optional DNS subdomain prefix, then a name)";
  }
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix.length === 0) {
      return "is not a valid label key: the prefix before '/' must not be empty";
    }
    if (prefix.length > PREFIX_MAX || !DNS1123_SUBDOMAIN.test(prefix)) {
      return `is not a valid label key: the prefix ${JSON.stringify(prefix)} must be a lowercase DNS subdomain ` +
        `of at most ${PREFIX_MAX} characters (e.g. 'topology.kubernetes.io')`;
    }
  }
  if (name.length === 0 || name.length > NAME_MAX || !NAME_PATTERN.test(name)) {
    return `is not a valid label key: the name part ${JSON.stringify(name)} ${LABEL_NAME_RULE}`;
  }
  return undefined;
}

/** Returns why `value` is not a valid label value, or undefined when it is valid. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > NAME_MAX || !NAME_PATTERN.test(value)) return LABEL_VALUE_RULE;
  return undefined;
}

/** True when `name` is a DNS-1123 label (names of Services, StatefulSets' pods, ...). */
export function isDnsLabel(name: string): boolean {
  return name.length <= NAME_MAX && DNS1123_LABEL.test(name);
}

/** One requirement of a label selector, in the Kubernetes JSON shape. */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: string[];
}

/** A label selector in the Kubernetes JSON shape. */
export interface Selector {
  readonly matchLabels?: { [key: string]: string };
  readonly matchExpressions?: SelectorRequirement[];
}

/**
 * True when `selector` selects an object carrying `labels` (Kubernetes semantics: every matchLabels
 * entry and every expression must hold). An empty selector matches everything.
 */
export function selectorMatches(selector: Selector, labels: { [key: string]: string }): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, req.key);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has || !values.includes(labels[req.key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[req.key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        throw new Error(`label selector: operator ${JSON.stringify(req.operator)} is not one of In, NotIn, Exists, DoesNotExist`);
    }
  }
  return true;
}

/** True when the selector has no requirement at all (it would select every pod in the namespace). */
export function selectorIsEmpty(selector: Selector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}
