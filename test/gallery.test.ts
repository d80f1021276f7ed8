/** docs/gallery.md is what the examples make: regenerate it with `npm run gallery` when an example changes. */
import * as fs from 'fs';
import { GALLERY, renderGallery } from '../scripts/gallery';

test('docs/gallery.md lists every example with its zone map, as the examples make them', () => {
  const page = renderGallery();
  expect(page).toMatch(/## web-3-zones\n\n.+\n\n\| Workload \| zone-a \| zone-b \| zone-c \| Survives losing any zone \|/);
  expect(fs.readFileSync(GALLERY, 'utf8')).toBe(page);
});
