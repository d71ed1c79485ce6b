/**
 * What the visitor did on a pre-rendered page before React took it over (issue 28: the app loads
 * only when the visitor starts using the page, `src/boot.ts`). React keeps the DOM as it finds it,
 * so a field typed into before then shows the text while the component's state is still empty:
 * `takeOverTypedFields` tells React what each field holds, as if typed now, and `sendHeldForm`
 * sends the form the boot script held back.
 */

/** The value setter of the element's class: sets the DOM without React's tracker noticing. */
function nativeValueSetter(el: HTMLInputElement | HTMLTextAreaElement) {
  return Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value')?.set;
}

export function takeOverTypedFields(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')) {
    if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.checked === el.defaultChecked) continue;
      const wanted = el.checked;
      el.checked = !wanted; // through React's tracker: it believes the box is as served
      el.click(); // the visitor's choice again, with the click React listens to
      if (el.checked !== wanted) el.checked = wanted;
      continue;
    }
    if (el.value === el.defaultValue) continue;
    const typed = el.value;
    el.value = el.defaultValue; // through React's tracker: it believes the field is as served
    nativeValueSetter(el)?.call(el, typed);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }
}

/**
 * Sends the form held back before the takeover, once React has seen the typed values, and taps
 * again the button tapped before it (once: the boot script kept the last one).
 */
export function sendHeldForm(): void {
  const form = window.__vpnPendingSubmit;
  const button = window.__vpnPendingClick;
  window.__vpnHydrated = true;
  window.__vpnPendingSubmit = null;
  window.__vpnPendingClick = null;
  if (form?.isConnected) setTimeout(() => form.requestSubmit(), 0);
  else if (button?.isConnected) setTimeout(() => button.click(), 0);
}
