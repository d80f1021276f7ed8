import { labelKeyProblem, labelValueProblem } from './kubernetes-names';
import { invalidProp } from '../shared/errors';
import { checkArg, Props } from '../shared/props';

/**
 * The user's node selector with a generated one merged in: the generated value wins for the same key, every
 * other user key is kept; both are validated as Kubernetes labels. `where` names the caller in error messages.
 */
export function mergeNodeSelector(
  where: string, user: { [key: string]: string } | undefined, generated: { [key: string]: string },
): { [key: string]: string } {
  checkArg(where, 'user', user, Props.optional(Props.mapOf(Props.string())));
  const merged: { [key: string]: string } = {};
  for (const [key, value] of Object.entries({ ...user, ...generated })) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) throw invalidProp(where, 'nodeSelector key', key, keyProblem);
    const valueProblem = labelValueProblem(value);
    if (valueProblem) throw invalidProp(where, `nodeSelector[${JSON.stringify(key)}]`, value, valueProblem);
    merged[key] = value;
  }
  return merged;
}
