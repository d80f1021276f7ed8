/**
 * Manual operations asked of the in-cluster manager by annotating the cluster's layout ConfigMap (pure part):
 * which operation the annotations ask for, or why it is refused.
 */
import {
  REDIS_OPERATION_ANNOTATION, REDIS_OPERATIONS, REDIS_RESET_CONFIRM_ANNOTATION, RedisOperation, redisResetConfirmation,
} from '../../../src/contract/redis';

export type OperationRequest =
  | { readonly operation: RedisOperation }
  | { readonly refused: string; readonly asked: string };

/** What the layout ConfigMap's annotations ask of the manager of `cluster`; undefined when nothing. */
export function operationRequest(
  annotations: { readonly [key: string]: string } | undefined,
  cluster: string,
): OperationRequest | undefined {
  const asked = annotations?.[REDIS_OPERATION_ANNOTATION];
  if (asked === undefined) return undefined;
  const operation = REDIS_OPERATIONS.find((o) => o === asked.trim());
  if (!operation) return { asked, refused: `unknown operation ${JSON.stringify(asked)}: one of ${REDIS_OPERATIONS.join(', ')}` };
  const confirmation = redisResetConfirmation(cluster);
  if (operation === 'reset' && annotations?.[REDIS_RESET_CONFIRM_ANNOTATION] !== confirmation) {
    return { asked, refused: `reset destroys every key: it also needs the annotation ${REDIS_RESET_CONFIRM_ANNOTATION}=${confirmation}` };
  }
  return { operation };
}

/** The merge patch that removes the request's annotations (the manager's acknowledgement). */
export function clearRequestPatch(): object {
  return { metadata: { annotations: { [REDIS_OPERATION_ANNOTATION]: null, [REDIS_RESET_CONFIRM_ANNOTATION]: null } } };
}
