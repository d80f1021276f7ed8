import { REDIS_OPERATION_ANNOTATION, REDIS_RESET_CONFIRM_ANNOTATION } from '../../src/contract/redis';
import { clearRequestPatch, operationRequest } from '../src/redis/operations';

const ask = (operation: string, extra: Record<string, string> = {}) =>
  operationRequest({ [REDIS_OPERATION_ANNOTATION]: operation, ...extra }, 'cache');

test('the operations an annotation may ask for', () => {
  expect(operationRequest(undefined, 'cache')).toBeUndefined();
  expect(operationRequest({ other: 'x' }, 'cache')).toBeUndefined();
  for (const operation of ['fix', 'rebalance', 'forget-lost-nodes', 'force-reconcile']) expect(ask(operation)).toEqual({ operation });
  expect(ask(' fix ')).toEqual({ operation: 'fix' });
  expect(ask('defrag')).toEqual({ asked: 'defrag', refused: 'unknown operation "defrag": one of fix, rebalance, forget-lost-nodes, force-reconcile, reset' });
});

test('reset needs the second annotation, naming the cluster', () => {
  const refused = { asked: 'reset', refused: `reset destroys every key: it also needs the annotation ${REDIS_RESET_CONFIRM_ANNOTATION}=destroy-all-data-of-cache` };
  expect(ask('reset')).toEqual(refused);
  expect(ask('reset', { [REDIS_RESET_CONFIRM_ANNOTATION]: 'yes' })).toEqual(refused);
  expect(ask('reset', { [REDIS_RESET_CONFIRM_ANNOTATION]: 'destroy-all-data-of-other' })).toEqual(refused);
  expect(ask('reset', { [REDIS_RESET_CONFIRM_ANNOTATION]: 'destroy-all-data-of-cache' })).toEqual({ operation: 'reset' });
});

test('the acknowledgement removes both annotations', () => {
  const cleared = { [REDIS_OPERATION_ANNOTATION]: null, [REDIS_RESET_CONFIRM_ANNOTATION]: null };
  expect(clearRequestPatch()).toEqual({ metadata: { annotations: cleared } });
});
