/**
 * The year in the public footer. The build's pre-render sets a marker here that the control plane
 * replaces with the year when it serves the page, so a page built last December still hydrates
 * without a mismatch in January.
 */
let renderedYear: string | null = null;

export function setRenderedYear(text: string | null): void {
  renderedYear = text;
}

export function footerYear(): string {
  return renderedYear ?? String(new Date().getFullYear());
}
