import { Eye, EyeOff } from 'lucide-react';
import { useId, useState } from 'react';
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

/** A labelled password input with a show/hide toggle. */
export function PasswordField({ label, ...input }: Omit<TextFieldProps, 'type' | 'hint'>) {
  const id = useId();
  const [visible, setVisible] = useState(false);
  return (
    <div>
      <label htmlFor={id} className={ui.label}>
        {label}
      </label>
      <div className="relative">
        <input id={id} type={visible ? 'text' : 'password'} className={`${ui.input} pr-11`} {...input} />
        <button
          type="button"
          onClick={() => setVisible((v) => !v)}
          disabled={input.disabled}
          aria-label={visible ? es.auth.hidePassword : es.auth.showPassword}
          aria-pressed={visible}
          className="absolute inset-y-0 right-0 grid w-11 place-items-center rounded-r-lg text-slate-400 hover:text-white disabled:opacity-50"
        >
          {visible ? (
            <EyeOff className="size-5" aria-hidden="true" />
          ) : (
            <Eye className="size-5" aria-hidden="true" />
          )}
        </button>
      </div>
    </div>
  );
}
