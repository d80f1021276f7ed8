/**
 * Manual operations asked of the in-cluster manager by annotating the cluster's layout ConfigMap (pure part):
 * which operation the annotations ask for, or why it is refused; and whether they pause the manager.
 */
import type { Issue } from './decision';
import {
  REDIS_OPERATION_ANNOTATION, REDIS_OPERATIONS, REDIS_PAUSED_ANNOTATION, REDIS_RESET_CONFIRM_ANNOTATION, RedisOperation,
  redisResetConfirmation,
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

/** Whether the annotations pause the manager, and why a value that is neither `true` nor `false` pauses nothing. */
export interface PauseRequest {
  readonly paused: boolean;
  readonly issue?: Issue;
}

/** What REDIS_PAUSED_ANNOTATION asks: only `true` pauses; any other value is reported, never guessed at. */
export function pauseRequest(annotations: { readonly [key: string]: string } | undefined): PauseRequest {
  const value = annotations?.[REDIS_PAUSED_ANNOTATION];
  if (value === undefined || value === 'false') return { paused: false };
  if (value === 'true') {
    const message = `paused by the annotation ${REDIS_PAUSED_ANNOTATION}=true: the manager changes nothing`;
    return { paused: true, issue: { kind: 'paused', message } };
  }
  const message = `the annotation ${REDIS_PAUSED_ANNOTATION}=${JSON.stringify(value)} is ignored: only "true" pauses the manager`;
  return { paused: false, issue: { kind: 'invalid-annotation', message } };
}
