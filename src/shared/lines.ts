/**
 * Newline-delimited text arriving in chunks (a watch's JSON events, a process's log): returns a chunk
 * handler that calls `onLine` with every complete, non-blank line, keeping a partial line until its end
 * arrives. An exception from `onLine` propagates out of the handler and the rest of that chunk is dropped.
 */
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    partial += chunk;
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, nl).trim();
      partial = partial.slice(nl + 1);
      if (line) onLine(line);
    }
  };
}
