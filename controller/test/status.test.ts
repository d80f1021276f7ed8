/** Writing a status only when it changed: compared field by field, whatever the order of their keys. */
import { statusHolds } from '../src/reconcilers/status';

describe('statusHolds', () => {
  test('a status sent back with its keys sorted (as the API server stores it) holds what was written', () => {
    const written = { recovery: { phase: 'Waiting', message: 'm', recovered: [{ pod: 'p', at: 't' }], held: [] } };
    const stored = { phase: 'Active', recovery: { held: [], message: 'm', phase: 'Waiting', recovered: [{ at: 't', pod: 'p' }] } };
    expect(statusHolds(stored, written)).toBe(true);
  });

  test('a changed value, a field missing, list order, or no status at all: not held', () => {
    const stored = { phase: 'Active', changed: [{ name: 'a' }, { name: 'b' }] };
    expect(statusHolds(stored, { phase: 'Ended' })).toBe(false);
    expect(statusHolds(stored, { endedAt: 't' })).toBe(false);
    expect(statusHolds(stored, { changed: [{ name: 'b' }, { name: 'a' }] })).toBe(false);
    expect(statusHolds(undefined, { phase: 'Active' })).toBe(false);
    // an undefined field is one a merge patch leaves out
    expect(statusHolds(stored, { phase: 'Active', endedAt: undefined })).toBe(true);
  });
});
