import { REDIS_OPERATION_ANNOTATION, REDIS_PAUSED_ANNOTATION, REDIS_RESET_CONFIRM_ANNOTATION } from '../../src/contract/redis';
import { clearRequestPatch, operationRequest, pauseRequest } from '../src/redis/operations';

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

test('only "true" pauses the manager; another value is reported and pauses nothing', () => {
  const paused = (value: string) => pauseRequest({ [REDIS_PAUSED_ANNOTATION]: value });
  expect(pauseRequest(undefined)).toEqual({ paused: false });
  expect(pauseRequest({ [REDIS_OPERATION_ANNOTATION]: 'fix' })).toEqual({ paused: false });
  expect(paused('false')).toEqual({ paused: false });
  expect(paused('true')).toEqual({
    paused: true,
    issue: { kind: 'paused', message: `paused by the annotation ${REDIS_PAUSED_ANNOTATION}=true: the manager changes nothing` },
  });
  for (const value of ['yes', 'True', ' true', '']) {
    expect(paused(value)).toEqual({
      paused: false,
      issue: {
        kind: 'invalid-annotation',
        message: `the annotation ${REDIS_PAUSED_ANNOTATION}=${JSON.stringify(value)} is ignored: only "true" pauses the manager`,
      },
    });
  }
});
