/** What the SPA hands the browser as downloads (Blob + object URL + a clicked anchor), for component tests. */
import { vi } from 'vitest';

/** Records every file the page saves: its name and its content. */
export function captureDownloads(): { name: string; blob: Blob }[] {
  const saved: { name: string; blob: Blob }[] = [];
  let blob: Blob | null = null;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
    blob = b as Blob;
    return 'blob:fake';
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    if (blob) saved.push({ name: this.download, blob });
  });
  return saved;
}

/** jsdom's Blob has no text(): read it the old way. */
export const readBlob = (blob: Blob) =>
  new Promise<string>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.readAsText(blob);
  });

/** The URLs `fetch` was called with (query strings included, which the fake API's routes ignore). */
export const fetchedUrls = () => vi.mocked(fetch).mock.calls.map(([input]) => String(input));
