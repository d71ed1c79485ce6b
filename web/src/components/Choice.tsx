import type { ReactNode } from 'react';

/**
 * One radio of a small choice (a plan's destination, a gateway, how a refund is made), styled as a
 * card. Group them in a `<fieldset>` with a `<legend>`.
 */
export function Choice({
  name,
  checked,
  disabled,
  onChange,
  children,
}: {
  name: string;
  checked: boolean;
  disabled: boolean;
  onChange: () => void;
  children: ReactNode;
}) {
  return (
    <label
      className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-2.5 text-sm font-medium ${
        checked ? 'border-emerald-400 bg-emerald-500/10 text-white' : 'border-slate-700 text-slate-300'
      } ${disabled ? 'cursor-not-allowed opacity-50' : ''}`}
    >
      <input
        type="radio"
        name={name}
        checked={checked}
        onChange={onChange}
        disabled={disabled}
        className="accent-emerald-500"
      />
      {children}
    </label>
  );
}
