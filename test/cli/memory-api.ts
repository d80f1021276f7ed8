/**
 * An in-memory API server for the CLI's live commands (objects by path, merge patches, 404 and 409 as the real one
 * answers), and `runCli`: the program run against it in virtual time.
 */
import { main } from '../../src/cli/main';
import { KubeApiError, KubeRequestApi, ObjectList } from '../../src/kubernetes/kube-api';

/** RFC 7386: `patch` merged into `target` (null deletes). */
export function mergePatch(target: any, patch: any): any {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: any = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class MemoryApi implements KubeRequestApi {
  /** Objects by their full path (`<list path>/<name>`). */
  private version = 1;
  readonly objects = new Map<string, any>();
  readonly calls: string[] = [];
  /** Called after each call (a test plays the controller here). */
  public onCall: (api: MemoryApi) => void = () => undefined;

  put(listPath: string, obj: any): void {
    this.objects.set(`${listPath}/${obj.metadata.name}`, { ...obj, metadata: { ...obj.metadata, resourceVersion: String(this.version++) } });
  }

  async get(path: string): Promise<any> {
    return this.after(`GET ${path}`, () => json(this.found(path)));
  }

  /** The whole list in one page. */
  async list(path: string): Promise<ObjectList<any>> {
    return this.after(`LIST ${path}`, () => ({
      items: [...this.objects].filter(([p]) => p.startsWith(`${path}/`) && !p.slice(path.length + 1).includes('/')).map(([, o]) => json(o)),
      metadata: {},
    }));
  }

  async create(path: string, body: any): Promise<any> {
    return this.after(`POST ${path}`, () => {
      if (this.objects.has(`${path}/${body.metadata.name}`)) throw new KubeApiError('POST', path, 409, 'AlreadyExists', 'already exists', `POST ${path}: HTTP 409 already exists`);
      this.put(path, { ...body, metadata: { ...body.metadata, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } });
      return body;
    });
  }

  async patch(path: string, body: any): Promise<any> {
    return this.after(`PATCH ${path}`, () => {
      const current = this.found(path);
      const wanted = body?.metadata?.resourceVersion;
      if (wanted !== undefined && wanted !== current.metadata.resourceVersion) throw new KubeApiError('PATCH', path, 409, 'Conflict', 'conflict', `PATCH ${path}: HTTP 409 conflict`);
      const next = mergePatch(current, body);
      this.objects.set(path, { ...next, metadata: { ...next.metadata, resourceVersion: String(this.version++) } });
      return next;
    });
  }

  async replace(path: string, body: any): Promise<any> {
    return this.after(`PUT ${path}`, () => {
      const current = this.found(path);
      const wanted = body?.metadata?.resourceVersion;
      if (wanted !== undefined && wanted !== current.metadata.resourceVersion) throw new KubeApiError('PUT', path, 409, 'Conflict', 'conflict', `PUT ${path}: HTTP 409 conflict`);
      this.objects.set(path, { ...body, metadata: { ...body.metadata, resourceVersion: String(this.version++) } });
      return body;
    });
  }

  async delete(path: string): Promise<void> {
    return this.after(`DELETE ${path}`, () => {
      const current = this.found(path);
      const finalized = (current.metadata.finalizers ?? []).length > 0;
      if (finalized) this.objects.set(path, { ...current, metadata: { ...current.metadata, deletionTimestamp: new Date().toISOString() } });
      else this.objects.delete(path);
    });
  }

  close(): void {}

  private found(path: string): any {
    const o = this.objects.get(path);
    if (o === undefined) throw new KubeApiError('GET', path, 404, 'NotFound', 'not found', `${path}: HTTP 404 not found`);
    return o;
  }

  private after<T>(call: string, act: () => T): T {
    this.calls.push(call);
    try {
      return act();
    } finally {
      this.onCall(this);
    }
  }
}

/** A copy as the API sends it (JSON; structuredClone would give objects of another realm under jest). */
function json<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

/** What a run of the program gave. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** When `runCli`'s virtual clock starts. */
export const CLI_START_MS = Date.parse('2026-11-27T10:00:00Z');

/**
 * `cdk8s-zones <argv>` against `api`: its exit code and output. Time is virtual (each sleep moves the clock); with
 * `interruptAfterSleeps`, Ctrl-C comes after that many sleeps.
 */
export async function runCli(api: MemoryApi, argv: string[], interruptAfterSleeps = Infinity): Promise<CliRun> {
  let now = CLI_START_MS;
  let sleeps = 0;
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdin: process.stdin,
    stdout: (s) => { stdout += s; },
    stderr: (s) => { stderr += s; },
    connect: () => api,
    now: () => now,
    sleep: async (ms) => { now += ms; sleeps++; },
    interrupted: () => sleeps >= interruptAfterSleeps,
  });
  return { code, stdout, stderr };
}
