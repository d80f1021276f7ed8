/**
 * A watch on the pods of one namespace, streamed (the test client buffers whole answers): every event in
 * the API server's order, so a test can tell which deletions happened together.
 */
import * as fs from 'fs';
import * as https from 'https';
import { ClusterInfo } from './control-plane';
import { lineSplitter } from '../../../src/shared/lines';

export interface PodEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly pod: any;
}

export interface PodWatch {
  stop(): void;
}

/** Starts the watch and resolves once the API server answered it (events from then on are seen as they happen). */
export async function watchPods(
  info: ClusterInfo,
  namespace: string,
  onEvent: (e: PodEvent) => void,
): Promise<PodWatch> {
  const url = new URL(info.server);
  let stopped = false;
  let req: ReturnType<typeof https.request> | undefined;
  let resourceVersion = '';
  let markOpened!: () => void;
  const opened = new Promise<void>((resolve) => { markOpened = resolve; });
  const agent = new https.Agent({
    ca: fs.readFileSync(info.ca),
    cert: fs.readFileSync(info.cert),
    key: fs.readFileSync(info.key),
  });
  const once = () => new Promise<void>((resolve, reject) => {
    const path = `/api/v1/namespaces/${namespace}/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=600${resourceVersion ? `&resourceVersion=${resourceVersion}` : ''}`;
    req = https.request({ host: url.hostname, port: url.port, path, method: 'GET', agent }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`watch pods in ${namespace}: HTTP ${res.statusCode}`));
        return;
      }
      markOpened();
      res.setEncoding('utf8');
      res.on('data', lineSplitter((line) => {
        const e = JSON.parse(line);
        resourceVersion = e.object?.metadata?.resourceVersion ?? resourceVersion;
        if (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED') onEvent({ type: e.type, pod: e.object });
      }));
      res.on('end', () => resolve());
      res.on('error', reject);
    });
    req.on('error', (err) => (stopped ? resolve() : reject(err)));
    req.end();
  });
  const loop = async () => {
    while (!stopped) await once().catch(() => undefined);
  };
  void loop();
  await opened;
  return { stop: () => { stopped = true; req?.destroy(); agent.destroy(); } };
}
