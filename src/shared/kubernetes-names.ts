/**
 * Kubernetes naming rules (apimachinery validation: IsQualifiedName, IsValidLabelValue, IsDNS1123Label,
 * ...), as pure functions that say why a name breaks them. Shared by every construct.
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
