/**
 * WatchedList: listed, then watched from the list's version; resumed from the last version seen when the API server
 * ends a watch, listed again on 410 Gone, retried after a failure; every change told.
 */
import { KubeApi, KubeApiError, KubeObject, ObjectList, WatchEvent, WatchOptions } from '../../src/kubernetes/kube-api';
import { WatchedList } from '../../src/kubernetes/watched-list';
import { MemoryKubeApi } from '../memory-kube-api';

const pod = (name: string, resourceVersion: string, ready = true): KubeObject => ({
  metadata: { name, namespace: 'ns', resourceVersion },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const names = (l: WatchedList) => l.items().map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();

test('over the in-memory API server: every change after the list, in order, each told', async () => {
  const api = new MemoryKubeApi();
  api.put('/api/v1/pods', pod('a', ''));
  const seen: string[][] = [];
  const list = new WatchedList(api, '/api/v1/pods', () => seen.push(names(list)), { sleep: async () => undefined });
  const abort = new AbortController();
  await list.start(abort.signal);
  expect(names(list)).toEqual(['a@1']);
  api.put('/api/v1/pods', pod('b', ''));
  await api.delete('/api/v1/pods/a');
  api.put('/api/v1/pods', pod('b', '', false));
  await new Promise((r) => setImmediate(r));
  expect(seen).toEqual([['a@1', 'b@2'], ['b@2'], ['b@4']]);
  abort.abort();
  await list.stopped();
});

/** An API server that answers lists and watches as scripted: each watch call takes the next script. */
type WatchScript = (onEvent: (e: WatchEvent) => void) => Promise<void>;

function scripted(lists: Array<ObjectList<KubeObject>>, watches: WatchScript[]) {
  const calls: string[] = [];
  const api: Pick<KubeApi, 'list' | 'watch'> = {
    list: async <T extends KubeObject>(path: string) => {
      calls.push(`LIST ${path}`);
      return lists.shift() as ObjectList<T>;
    },
    watch: async <T extends KubeObject>(
      path: string, o: WatchOptions, onEvent: (e: WatchEvent<T>) => void, signal: AbortSignal,
    ) => {
      calls.push(`WATCH ${path} from ${o.resourceVersion}`);
      const next = watches.shift();
      if (next === undefined) return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      return next(onEvent as (e: WatchEvent) => void);
    },
  };
  return { api, calls };
}

test('a watch ended is resumed from the last version seen (a bookmark\'s too); 410 Gone lists again; a failure is retried', async () => {
  const gone = new KubeApiError('WATCH', '/api/v1/pods', 410, 'Expired', 'too old', 'WATCH: HTTP 410 too old');
  const { api, calls } = scripted(
    [
      { items: [pod('a', '5')], metadata: { resourceVersion: '5' } },
      { items: [pod('c', '20')], metadata: { resourceVersion: '20' } },
    ],
    [
      async (on) => on({ type: 'ADDED', object: pod('b', '6') }),
      async (on) => on({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '9' } } }),
      async () => { throw gone; },
      async () => { throw new Error('connection reset'); },
    ],
  );
  const sleeps: number[] = [];
  let told = 0;
  const list = new WatchedList(api, '/api/v1/pods', () => told++, { sleep: async (ms) => { sleeps.push(ms); }, retryMs: 750 });
  const abort = new AbortController();
  await list.start(abort.signal);
  await new Promise((r) => setTimeout(r, 10));
  expect(calls).toEqual([
    'LIST /api/v1/pods', 'WATCH /api/v1/pods from 5', 'WATCH /api/v1/pods from 6', 'WATCH /api/v1/pods from 9',
    'LIST /api/v1/pods', 'WATCH /api/v1/pods from 20', 'WATCH /api/v1/pods from 20',
  ]);
  expect(names(list)).toEqual(['c@20']);
  expect(told).toBe(2); // b added, and the new list
  expect(sleeps).toEqual([750]);
  abort.abort();
  await list.stopped();
});
