/**
 * The two controls of the pre-rendered pages that need no application (issue 32, point 8): the
 * public menu ("Abrir menú") and "Mostrar contraseña". Their state lives in the page, not in React:
 * a button marked `data-flip` flips its `aria-expanded` or `aria-pressed`, swaps its label with the
 * other one it carries (`data-label`) and, when it controls a password field (`aria-controls`), the
 * field's type. What else it opens (the menu) follows the button in CSS (`peer-aria-expanded:`). Before the application has arrived the boot script does this on
 * the first tap (`src/boot.ts`, `flip` there: keep the two alike; the boot script imports nothing,
 * so that it stays one small file); afterwards the menu's click handler calls this. React never
 * writes the menu's `aria-expanded` or labels again, so it finds the menu as the visitor left it.
 * A password field is React's own once it has taken over (React writes an input's `type` at every
 * update): `PasswordField` starts from what the boot script left on its button.
 */
export function flip(button: HTMLElement): void {
  const state = button.hasAttribute('aria-expanded') ? 'aria-expanded' : 'aria-pressed';
  const on = button.getAttribute(state) !== 'true';
  button.setAttribute(state, String(on));
  const label = button.getAttribute('data-label');
  if (label) {
    button.setAttribute('data-label', button.getAttribute('aria-label') ?? '');
    button.setAttribute('aria-label', label);
  }
  const target = document.getElementById(button.getAttribute('aria-controls') ?? '');
  if (target instanceof HTMLInputElement) target.type = on ? 'text' : 'password';
}

/** Closes what `button` opened (a menu after one of its links was followed). */
export function close(button: HTMLElement | null): void {
  if (button?.getAttribute('aria-expanded') === 'true') flip(button);
}
