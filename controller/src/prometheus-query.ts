/**
 * An instant query of the Prometheus HTTP API (`GET <url>/api/v1/query`), for the autoshift's per-zone signal and
 * its practice runs' outcome check: each sample of the vector it returns, with its labels and value. Throws with
 * what went wrong (unreachable, an HTTP error, a PromQL error, a result that is no vector); the caller then counts
 * the query as no signal.
 */

/** How long a query may take: the autoshift evaluates every few seconds. */
const QUERY_TIMEOUT_MS = 3_000;

export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export async function instantQuery(url: string, query: string, fetchFn: typeof fetch = fetch): Promise<Sample[]> {
  const endpoint = `${url.replace(/\/+$/, '')}/api/v1/query?query=${encodeURIComponent(query)}`;
  const response = await fetchFn(endpoint, { signal: AbortSignal.timeout(QUERY_TIMEOUT_MS) });
  const text = await response.text();
  let body: { status?: string; error?: string; data?: { resultType?: string; result?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${endpoint}: HTTP ${response.status}, not the Prometheus API's JSON: ${text.slice(0, 200)}`);
  }
  if (!response.ok || body.status !== 'success') {
    throw new Error(`${endpoint}: HTTP ${response.status}: ${body.error ?? text.slice(0, 200)}`);
  }
  if (body.data?.resultType !== 'vector' || !Array.isArray(body.data.result)) {
    throw new Error(`query ${JSON.stringify(query)} returned a ${body.data?.resultType}, not an instant vector`);
  }
  return (body.data.result as Array<{ metric?: Record<string, string>; value?: [number, string] }>)
    .map((r) => ({ labels: r.metric ?? {}, value: Number(r.value?.[1]) }))
    .filter((s) => Number.isFinite(s.value));
}
