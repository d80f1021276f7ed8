/**
 * Label selectors in the Kubernetes JSON shape, and their matching semantics. Pure: shared by the
 * constructs (a spread constraint must select its pods) and the runtime controller (which pods a budget
 * guards).
 */

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
