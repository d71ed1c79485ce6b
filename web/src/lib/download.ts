/** Handing a file the SPA fetched itself (with the bearer token) to the browser as a download. */

/** Hands `blob` to the browser as a download named `fileName` (object URL + a clicked link). */
export function saveBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Revoked on the next task: the download has been handed over by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
