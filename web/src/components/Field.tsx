import { Eye } from 'lucide-react';
import { useId, useLayoutEffect, useRef, useState } from 'react';
import type { InputHTMLAttributes, ReactNode } from 'react';
import { es } from '../i18n/es';
import { ui } from './ui';

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'className'>;

interface TextFieldProps extends InputProps {
  label: string;
  hint?: ReactNode;
}

/** A labelled input. */
export function TextField({ label, hint, ...input }: TextFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div>
      <label htmlFor={id} className={ui.label}>
        {label}
      </label>
      <input id={id} className={ui.input} aria-describedby={hint ? hintId : undefined} {...input} />
      {hint && (
        <p id={hintId} className="mt-1.5 text-xs text-slate-400">
          {hint}
        </p>
      )}
    </div>
  );
}

/**
 * A labelled password input with a show/hide toggle. On a pre-rendered page the toggle works before
 * the application has arrived: the boot script flips the button (`data-flip`, `lib/flip.ts`) and
 * the field's type; once React has taken the page over, the field starts from what the button says.
 */
export function PasswordField({ label, ...input }: Omit<TextFieldProps, 'type' | 'hint'>) {
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  const [visible, setVisible] = useState(false);
  // Before the first paint after the takeover (React has just written type="password" again).
  useLayoutEffect(() => {
    if (button.current?.getAttribute('aria-pressed') === 'true') setVisible(true);
  }, []);
  return (
    <div>
      <label htmlFor={id} className={ui.label}>
        {label}
      </label>
      <div className="relative">
        <input id={id} type={visible ? 'text' : 'password'} className={`${ui.input} pr-11`} {...input} />
        <button
          ref={button}
          type="button"
          data-flip=""
          onClick={() => setVisible((v) => !v)}
          disabled={input.disabled}
          aria-controls={id}
          aria-label={visible ? es.auth.hidePassword : es.auth.showPassword}
          data-label={visible ? es.auth.showPassword : es.auth.hidePassword}
          aria-pressed={visible}
          className="group absolute inset-y-0 right-0 grid w-11 place-items-center rounded-r-lg text-slate-400 hover:text-white disabled:opacity-50"
        >
          {/* One icon: the eye, crossed out while the password shows (no second icon in the page). */}
          <Eye className="size-5" aria-hidden="true">
            <path d="m2 2 20 20" className="hidden group-aria-pressed:block" />
          </Eye>
        </button>
      </div>
    </div>
  );
}
