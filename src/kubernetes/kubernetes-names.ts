/**
 * Kubernetes naming rules (apimachinery validation: IsQualifiedName, IsValidLabelValue, IsDNS1123Label,
 * IsDNS1123Subdomain, IsDNS1035Label, IsConfigMapKey), as pure functions that say why a name breaks
 * them; and the one way the library makes a valid name out of text that is not one (shortened or
 * cleaned, with a hash of the original so two texts never give one name).
 */
import { createHash } from 'crypto';

/** The longest label name, label value and DNS label. */
export const NAME_MAX = 63;
/** The longest DNS subdomain (most object names). */
export const SUBDOMAIN_MAX = 253;
const PREFIX_MAX = SUBDOMAIN_MAX;
/**
 * The longest StatefulSet name: its pods carry the label `controller-revision-hash: <name>-<10-character
 * hash>`, whose value may not exceed 63 characters.
 */
export const MAX_STATEFULSET_NAME = 52;
const NAME_PATTERN = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;

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

/** Why `name` is not a DNS-1123 label (Namespaces, most names a pod or host carries), or undefined. */
export function dnsLabelProblem(name: string): string | undefined {
  return isDnsLabel(name) ? undefined
    : `is not a DNS label: at most ${NAME_MAX} characters, lower-case letters, digits and '-', starting and ending with a letter or digit`;
}

/** Why `name` is not a DNS-1035 label (Service names: a DNS label that starts with a letter), or undefined. */
export function serviceNameProblem(name: string): string | undefined {
  return name.length <= NAME_MAX && DNS1035_LABEL.test(name) ? undefined
    : `is not a valid Service name (DNS-1035 label): at most ${NAME_MAX} characters, lower-case letters, digits and '-', ` +
      'starting with a letter and ending with a letter or digit';
}

/** Why `name` is not a DNS-1123 subdomain (ConfigMaps, Secrets, StorageClasses, ...), or undefined. */
export function dnsSubdomainProblem(name: string): string | undefined {
  return name.length <= SUBDOMAIN_MAX && DNS1123_SUBDOMAIN.test(name) ? undefined
    : `is not a DNS subdomain: at most ${SUBDOMAIN_MAX} characters of lower-case letters, digits, '-' and '.', ` +
      'starting and ending with a letter or digit';
}

/** Why `key` cannot be a key of a Secret's or ConfigMap's data, or undefined. */
export function dataKeyProblem(key: string): string | undefined {
  return key.length <= SUBDOMAIN_MAX && DATA_KEY.test(key) && key !== '.' && key !== '..' ? undefined
    : `is not a valid Secret or ConfigMap key: at most ${SUBDOMAIN_MAX} characters of letters, digits, '-', '_' and '.'`;
}

/** The first `length` hex digits of the SHA-256 of `text`: what tells shortened names apart. */
export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * A DNS label (a DNS-1035 label when `letterFirst`) of at most `max` characters made from `text`: the text
 * itself when it already is one, else its letters and digits lower-cased with every other run turned
 * into '-', cut to fit, and followed by a hash of the original text (so 'Zone_A' and 'zone.a' stay apart).
 */
export function toDnsLabel(text: string, max: number = NAME_MAX, letterFirst = false, hashLength = 8): string {
  const valid = (letterFirst ? serviceNameProblem(text) : dnsLabelProblem(text)) === undefined;
  return valid && text.length <= max ? text : hashedDnsLabel(text, max, letterFirst, hashLength);
}

/** `text` cleaned into a DNS label (or Service name) and cut to fit `max`, always followed by a hash of `text`. */
export function hashedDnsLabel(text: string, max: number, letterFirst = false, hashLength = 8): string {
  const hash = shortHash(text, hashLength);
  let base = text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (letterFirst && !/^[a-z]/.test(base)) base = `x${base ? `-${base}` : ''}`;
  base = base.slice(0, Math.max(0, max - hash.length - 1)).replace(/-+$/, '');
  return base ? `${base}-${hash}` : hash; // a hash of hex digits alone (letterFirst texts always keep their 'x')
}

/**
 * A valid label value of at most 63 characters made from `text`: the text itself when it already is one,
 * else its letters, digits, '-', '_' and '.' cut to fit and followed by a hash of the original text.
 */
export function toLabelValue(text: string): string {
  if (labelValueProblem(text) === undefined) return text;
  const hash = shortHash(text);
  const base = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, NAME_MAX - hash.length - 1).replace(/[^A-Za-z0-9]+$/, '');
  return base ? `${base}-${hash}` : hash;
}
